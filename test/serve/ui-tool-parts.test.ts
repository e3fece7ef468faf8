// Tool calls on the UI message stream (issue #22 §2): outputs from the logged results — text
// joined, images as data URLs in a structured value — errors as tool-output-error, a bad call
// (unknown tool, invalid arguments) as tool-input-error; live and from the log alike.
import { describe, expect, test } from "vitest";
import { ScriptedProvider } from "../../src/llm/core.js";
import { createAgent } from "../../src/loop/index.js";
import { toolOutput, toUIMessageStream, uiMessagesFromLog } from "../../src/serve/index.js";
import { defineTool, jsonSchema } from "../../src/tools/index.js";
import { assemble, collect, echo, expectValidChunks } from "./support.js";

const PNG = "iVBORw0KGgo=";
const picture = defineTool({
  name: "picture",
  description: "draws",
  input: jsonSchema({ type: "object", properties: {} }),
  readOnly: true,
  execute: () => ({
    content: [
      { type: "text", text: "here it is" },
      { type: "image", mediaType: "image/png", data: PNG },
    ],
  }),
});
const broken = defineTool({
  name: "broken",
  description: "fails",
  input: jsonSchema({ type: "object", properties: {} }),
  readOnly: true,
  execute: () => {
    throw new Error("disk on fire");
  },
});

/** Runs one turn calling `calls`, streamed; returns the assembled message and the log's. */
async function turnWith(calls: { name: string; arguments?: string | object }[]) {
  const provider = new ScriptedProvider([{ toolCalls: calls }, { text: "ok" }]);
  const agent = createAgent({ provider, model: "m", tools: [echo, picture, broken] });
  const chunks = await collect(toUIMessageStream(agent.stream("go")));
  await expectValidChunks(chunks);
  const { message } = await assemble(chunks);
  const fromLog = uiMessagesFromLog(agent.session).at(-1);
  await agent.dispose();
  return { chunks, message, fromLog };
}

describe("tool parts", () => {
  test("text and image output: a structured value with the image as a data URL", async () => {
    const { message, fromLog } = await turnWith([{ name: "picture" }]);
    expect(message).toEqual(fromLog);
    expect(message?.parts[1]).toMatchObject({
      type: "tool-picture",
      state: "output-available",
      output: {
        content: [
          { type: "text", text: "here it is" },
          { type: "image", mediaType: "image/png", url: `data:image/png;base64,${PNG}` },
        ],
      },
    });
  });

  test("a tool that throws: tool-output-error with the result's text", async () => {
    const { chunks, message, fromLog } = await turnWith([{ name: "broken" }]);
    expect(message).toEqual(fromLog);
    const error = chunks.find((c) => c.type === "tool-output-error");
    expect(error).toMatchObject({ toolCallId: "call_1_1_0", errorText: expect.stringContaining("disk on fire") });
    expect(message?.parts[1]).toMatchObject({ state: "output-error", input: {} });
  });

  test("a call to an unknown tool, and arguments that are not JSON: tool-input-error, the arguments kept raw", async () => {
    const { chunks, message, fromLog } = await turnWith([
      { name: "nope", arguments: { a: 1 } },
      { name: "echo", arguments: "{not json" },
    ]);
    expect(message).toEqual(fromLog);
    expect(chunks.filter((c) => c.type === "tool-input-error").length).toBe(2);
    expect(message?.parts[1]).toMatchObject({ type: "tool-nope", state: "output-error", rawInput: { a: 1 } });
    expect(message?.parts[2]).toMatchObject({ type: "tool-echo", state: "output-error", rawInput: "{not json" });
  });

  test("several calls in one step keep their order and each gets its own output", async () => {
    const { message, fromLog } = await turnWith([
      { name: "echo", arguments: { text: "a" } },
      { name: "echo", arguments: { text: "b" } },
    ]);
    expect(message).toEqual(fromLog);
    const outputs = message?.parts.flatMap((p) => ("output" in p ? [p.output] : []));
    expect(outputs).toEqual(["echo: a", "echo: b"]);
  });

  test("toolOutput: text only is the joined string", () => {
    expect(
      toolOutput([
        { type: "text", text: "one" },
        { type: "text", text: "two" },
      ]),
    ).toBe("one\ntwo");
    expect(toolOutput([])).toBe("");
  });
});
