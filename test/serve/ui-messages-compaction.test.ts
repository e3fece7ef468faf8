// uiMessagesFromLog over a compacted session: a compaction summary (a `user/message` of source
// `compaction`) is not a message and does not split its turn — what a reloaded page shows equals
// what the live UI message stream showed, for a compaction before a turn's first step and one
// between its steps.
import { describe, expect, test } from "vitest";
import { z } from "zod";
import { createCompaction } from "../../src/compaction/index.js";
import { ScriptedProvider, type ScriptedReply } from "../../src/llm/core.js";
import { createAgent } from "../../src/loop/index.js";
import type { Message } from "../../src/messages/index.js";
import { toUIMessageStream, type UIMessage, uiMessagesFromLog } from "../../src/serve/index.js";
import type { SessionEvent } from "../../src/session/index.js";
import { defineTool } from "../../src/tools/index.js";
import { assemble, collect } from "./support.js";

const words = (n: number, seed = 0): string =>
  Array.from({ length: n }, (_, i) => `w${(seed * 31 + i * 7) % 97}`).join(" ");

const isSummaryCall = (messages: readonly Message[]): boolean =>
  messages.at(-1)?.content.some((b) => b.type === "text" && b.text.startsWith("Write a checkpoint")) === true;

/** Two `read` calls per turn, then an answer; a summary call gets a short checkpoint. */
const model = () =>
  new ScriptedProvider([], {
    fallback: (request: { messages: readonly Message[] }): ScriptedReply => {
      if (isSummaryCall(request.messages)) return { text: "<checkpoint>\nCurrent state: fine.\n</checkpoint>" };
      let results = 0;
      for (let i = request.messages.length - 1; i >= 0 && request.messages[i]!.role !== "user"; i--)
        if (request.messages[i]!.role === "tool") results++;
      if (results < 2) return { text: "reading", toolCalls: [{ name: "read", arguments: { path: `f${results}` } }] };
      return { text: `done ${words(20)}` };
    },
  });

const read = defineTool({
  name: "read",
  description: "reads a file",
  input: z.object({ path: z.string() }),
  execute: ({ path }) => `${path}: ${words(500, path.length)}`,
});

/** Where each compaction summary landed: before its turn's first step, or between two steps. */
function summaryPlaces(events: readonly SessionEvent[]): string[] {
  const places: string[] = [];
  let steps = 0;
  for (const event of events) {
    if (event.type === "turn/start") steps = 0;
    if (event.type === "step/start") steps++;
    if (event.type === "user/message" && (event.data as { source: string }).source === "compaction")
      places.push(steps === 0 ? "before the first step" : "mid-turn");
  }
  return places;
}

describe("uiMessagesFromLog over compaction", () => {
  test("a compaction summary is no message and does not split its turn: the reload equals the live stream", async () => {
    const agent = createAgent({
      provider: model(),
      model: "m",
      tools: [read],
      // A tiny window: the third turn's long prompt compacts before its first step, the fourth mid-turn.
      compaction: createCompaction({ contextWindow: 3_000, keepRecentTokens: 300, summaryMaxTokens: 100 }),
    });
    const live: UIMessage[] = [];
    for (const prompt of ["task 1", "task 2", `task 3 ${words(900)}`, "task 4"]) {
      const { message, errors } = await assemble(await collect(toUIMessageStream(agent.stream(prompt))));
      expect(errors).toEqual([]);
      live.push(message as UIMessage);
    }
    expect(summaryPlaces(agent.session.events)).toEqual(["before the first step", "mid-turn"]);

    const reloaded = uiMessagesFromLog(agent.session);
    expect(reloaded.map((m) => [m.id, m.role])).toEqual([
      ["user-1", "user"],
      ["turn-1", "assistant"],
      [expect.stringMatching(/^user-\d+$/), "user"],
      ["turn-2", "assistant"],
      [expect.stringMatching(/^user-\d+$/), "user"],
      ["turn-3", "assistant"],
      [expect.stringMatching(/^user-\d+$/), "user"],
      ["turn-4", "assistant"],
    ]);
    expect(reloaded.filter((m) => m.role === "assistant")).toEqual(live);
    expect(JSON.stringify(reloaded)).not.toContain("<checkpoint>");
    await agent.dispose();
  });
});
