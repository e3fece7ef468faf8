// The emulator's models: ScriptedEmulatorModel (FIFO per session key, shared default queue,
// functions of the request, exhaustion) and RuleBasedModel (summarize a tool result, read a
// named file, list on request, otherwise acknowledge).
import { describe, expect, test } from "vitest";
import {
  type EmulatorRequest,
  EmulatorModelError,
  RuleBasedModel,
  ScriptedEmulatorModel,
} from "../../src/emulator/index.js";
import type { ToolSchema } from "../../src/llm/index.js";
import type { Message } from "../../src/messages/index.js";

const user = (text: string): Message => ({ role: "user", content: [{ type: "text", text }] });
const tool = (name: string, properties: Record<string, unknown> = {}): ToolSchema => ({
  name,
  inputSchema: { type: "object", properties } as ToolSchema["inputSchema"],
});
const req = (messages: readonly Message[], over: Partial<EmulatorRequest> = {}): EmulatorRequest => ({
  api: "in-process",
  model: "m",
  system: "",
  tools: [],
  messages,
  maxTokens: undefined,
  stop: [],
  sessionKey: "default",
  stream: true,
  ...over,
});

describe("ScriptedEmulatorModel", () => {
  test("answers each session from its own FIFO, then from the shared default queue", async () => {
    const model = new ScriptedEmulatorModel([{ text: "shared-1" }]);
    model.pushFor("s1", { text: "s1-a" }, { text: "s1-b" });
    const ask = async (sessionKey: string) => model.reply(req([user("hi")], { sessionKey }));
    expect(await ask("s1")).toStrictEqual({ text: "s1-a" });
    expect(await ask("s2")).toStrictEqual({ text: "shared-1" });
    expect(await ask("s1")).toStrictEqual({ text: "s1-b" });
    expect(model.remaining("s1")).toBe(0);
    expect(model.requests.map((r) => r.sessionKey)).toStrictEqual(["s1", "s2", "s1"]);
  });

  test("a function step receives the normalized request", async () => {
    const model = new ScriptedEmulatorModel([(r) => ({ text: `${r.messages.length} message(s) to ${r.model}` })]);
    expect(await model.reply(req([user("a"), user("b")]))).toStrictEqual({ text: "2 message(s) to m" });
  });

  test("an exhausted script throws EmulatorModelError naming the session; a fallback answers instead", async () => {
    await expect(new ScriptedEmulatorModel().reply(req([user("x")], { sessionKey: "s9" }))).rejects.toThrow(
      EmulatorModelError,
    );
    await expect(new ScriptedEmulatorModel().reply(req([user("x")], { sessionKey: "s9" }))).rejects.toThrow(/"s9"/);
    expect(await new ScriptedEmulatorModel([], { fallback: { text: "fb" } }).reply(req([user("x")]))).toStrictEqual({
      text: "fb",
    });
  });
});

describe("RuleBasedModel", () => {
  const model = new RuleBasedModel();

  test("calls a read tool with a path the user names", () => {
    const reply = model.reply(
      req([user("Please open notes.txt and summarize it")], { tools: [tool("ls"), tool("read_file", { path: {} })] }),
    );
    expect(reply).toMatchObject({ toolCalls: [{ name: "read_file", arguments: { path: "notes.txt" } }] });
    expect(model.reply(req([user("look at src/a.ts.")], { tools: [tool("cat")] }))).toMatchObject({
      toolCalls: [{ name: "cat", arguments: { path: "src/a.ts" } }],
    });
  });

  test("falls back to a non-mutating tool whose schema has a path property", () => {
    const tools = [tool("write_file", { path: {} }), tool("show", { path: {} })];
    expect(model.reply(req([user("check README.md")], { tools }))).toMatchObject({ toolCalls: [{ name: "show" }] });
  });

  test("calls a list tool when asked to list", () => {
    expect(model.reply(req([user("list the files here")], { tools: [tool("ls", { path: {} })] }))).toMatchObject({
      toolCalls: [{ name: "ls", arguments: { path: "." } }],
    });
  });

  test("runs a backticked command with a shell tool, and writes backticked text to a named path", () => {
    const tools = [tool("read", { path: {} }), tool("write", { path: {}, content: {} }), tool("bash", { command: {} })];
    expect(model.reply(req([user("please run `ls -la src/a.ts` now")], { tools }))).toStrictEqual({
      text: "Running ls -la src/a.ts.",
      toolCalls: [{ name: "bash", arguments: { command: "ls -la src/a.ts" } }],
    });
    expect(model.reply(req([user("write `hello world` to notes/today.txt.")], { tools }))).toStrictEqual({
      text: "Writing notes/today.txt.",
      toolCalls: [{ name: "write", arguments: { path: "notes/today.txt", content: "hello world" } }],
    });
    // Without a matching tool the rules fall through (here: read the named path).
    expect(model.reply(req([user("run `cat a.txt`")], { tools: [tool("read", { path: {} })] }))).toMatchObject({
      toolCalls: [{ name: "read", arguments: { path: "a.txt" } }],
    });
  });

  test("summarizes a tool result by quoting its first line, and finishes", () => {
    const messages: Message[] = [
      user("read notes.txt"),
      {
        role: "assistant",
        content: [{ type: "tool-call", callId: "c1", name: "read_file", arguments: '{"path":"notes.txt"}' }],
      },
      {
        role: "tool",
        content: [
          {
            type: "tool-result",
            callId: "c1",
            content: [{ type: "text", text: "\nfirst line\nsecond" }],
            isError: false,
          },
        ],
      },
    ];
    expect(model.reply(req(messages))).toStrictEqual({ text: 'read_file returned: "first line"' });
  });

  test("otherwise acknowledges the first 80 characters of the prompt", () => {
    expect(model.reply(req([user("hello there")]))).toStrictEqual({ text: "Understood: hello there" });
    const long = "x ".repeat(100);
    expect(model.reply(req([user(long)]))).toStrictEqual({ text: `Understood: ${long.trim().slice(0, 80)}` });
    expect(model.reply(req([user("e.g. nothing to read")], { tools: [tool("read_file")] }))).toStrictEqual({
      text: "Understood: e.g. nothing to read",
    });
  });
});

// Issue #20: the rule-based model only called tools with fixed names (read_file, bash, …); it now
// calls any declared tool the prompt names.
describe("RuleBasedModel calls any declared tool the prompt names", () => {
  const model = new RuleBasedModel();
  const weather: ToolSchema = {
    name: "get_weather",
    inputSchema: {
      type: "object",
      properties: { city: { type: "string" }, days: { type: "integer" }, metric: { type: "boolean" } },
      required: ["city", "days"],
    } as ToolSchema["inputSchema"],
  };

  test("with the JSON arguments that follow its name", () => {
    const reply = model.reply(
      req([user('Please call get_weather {"city": "Oslo", "days": 3} and tell me.')], {
        tools: [tool("read"), weather],
      }),
    );
    expect(reply).toStrictEqual({
      text: "Calling get_weather.",
      toolCalls: [{ name: "get_weather", arguments: { city: "Oslo", days: 3 } }],
    });
  });

  test("without arguments: a placeholder for each required property of its schema", () => {
    expect(model.reply(req([user("use the `get_weather` tool")], { tools: [weather] }))).toStrictEqual({
      text: "Calling get_weather.",
      toolCalls: [{ name: "get_weather", arguments: { city: "", days: 0 } }],
    });
  });

  test("a name that is not declared is not called; a bare built-in name keeps the built-in rule", () => {
    expect(model.reply(req([user("call get_weather")], { tools: [tool("read")] }))).toStrictEqual({
      text: "Understood: call get_weather",
    });
    expect(model.reply(req([user("use read on notes.txt")], { tools: [tool("read", { path: {} })] }))).toMatchObject({
      toolCalls: [{ name: "read", arguments: { path: "notes.txt" } }],
    });
  });
});
