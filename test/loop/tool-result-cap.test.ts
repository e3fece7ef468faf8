// One tool result is bounded before it is logged (`maxToolResultChars`, found from outside: a
// third-party tool's 3 MB result overflowed the window on that turn and every later one, with or
// without compaction). The log holds the capped result, so the requests (a pure function of the
// log) carry it too.
import { describe, expect, test } from "vitest";
import { z } from "zod";
import { LoopError } from "../../src/loop/index.js";
import type { ToolResultPart } from "../../src/messages/index.js";
import { capToolResult, DEFAULT_MAX_TOOL_RESULT_CHARS, defineTool } from "../../src/tools/index.js";
import { eventsOf, expectLogMatchesRequests, scriptedAgent } from "./support.js";

const text = (t: string): ToolResultPart => ({ type: "text", text: t });
const image: ToolResultPart = { type: "image", mediaType: "image/png", data: "iVBORw0KGgo=" };

describe("capToolResult", () => {
  test("a result within the cap is returned as it is", () => {
    const content = [text("abc"), image, text("def")];
    expect(capToolResult(content, 6)).toBe(content);
  });

  test("the head of the text is kept in order, the rest dropped, and a marker says how much", () => {
    const capped = capToolResult([text("aaaa"), image, text("bbbb"), text("cccc")], 6);
    expect(capped).toEqual([
      text("aaaa"),
      image,
      text("bb"),
      text("[… tool result truncated: 6 more characters not shown (the result was over 6 characters) …]"),
    ]);
  });

  test("a cut never splits a surrogate pair", () => {
    const capped = capToolResult([text("ab😀cd")], 3);
    expect((capped[0] as { text: string }).text).toBe("ab");
    expect((capped[1] as { text: string }).text).toContain("4 more characters");
  });
});

describe("the loop caps each tool result before logging it", () => {
  const dump = defineTool({
    name: "dump",
    description: "Returns a lot of text.",
    input: z.object({ chars: z.number() }),
    execute: ({ chars }) => "x".repeat(chars),
  });

  test("a 3 MB result is logged at the default cap, with the marker, and the next request carries that", async () => {
    const { agent, provider } = scriptedAgent({
      tools: [dump],
      replies: [{ toolCalls: [{ name: "dump", arguments: { chars: 3_000_000 } }] }, { text: "read it" }],
    });
    expect((await agent.send("dump it")).reason).toEqual({ kind: "completed" });
    const [result] = eventsOf(agent, "tool/result");
    const parts = result!.data.content as readonly { type: "text"; text: string }[];
    expect(parts).toHaveLength(2);
    expect(parts[0]!.text).toHaveLength(DEFAULT_MAX_TOOL_RESULT_CHARS);
    expect(parts[1]!.text).toContain(`${3_000_000 - DEFAULT_MAX_TOOL_RESULT_CHARS} more characters not shown`);
    expectLogMatchesRequests(agent, provider);
    const sent = JSON.stringify(provider.requests[1]!.messages);
    expect(sent.length).toBeLessThan(DEFAULT_MAX_TOOL_RESULT_CHARS + 10_000);
    await agent.dispose();
  });

  test("the cap is an option; Infinity turns it off", async () => {
    for (const [cap, expected] of [
      [1_000, 1_000],
      [Number.POSITIVE_INFINITY, 300_000],
    ] as const) {
      const { agent } = scriptedAgent({
        tools: [dump],
        maxToolResultChars: cap,
        replies: [{ toolCalls: [{ name: "dump", arguments: { chars: 300_000 } }] }],
      });
      await agent.send("dump it");
      const [result] = eventsOf(agent, "tool/result");
      expect((result!.data.content[0] as { text: string }).text).toHaveLength(expected);
      await agent.dispose();
    }
  });

  test("a cap that is not a positive integer or Infinity is refused when the agent is made", () => {
    for (const bad of [0, -1, 1.5, Number.NaN, "100" as unknown as number]) {
      expect(() => scriptedAgent({ maxToolResultChars: bad })).toThrow(LoopError);
      try {
        scriptedAgent({ maxToolResultChars: bad });
      } catch (error) {
        expect((error as LoopError).code).toBe("invalid-options");
        expect((error as Error).message).toContain("maxToolResultChars");
      }
    }
  });
});
