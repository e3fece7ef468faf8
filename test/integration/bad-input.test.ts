// Bad input at the provider boundary: answers that violate their own protocol (from a raw fake
// server, since the emulator only speaks correctly), tool arguments the model got wrong, missing
// keys and unknown models — typed errors or an isError result the model sees, never a crash,
// never a corrupt log.
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, test } from "vitest";
import { ScriptedEmulatorModel } from "../../src/emulator/index.js";
import { AnthropicProvider, OpenAICompatibleProvider, type Provider, ProviderError } from "../../src/llm/index.js";
import { createAgent, LoopError } from "../../src/loop/index.js";
import { expectClosedLog } from "../loop/loop-support.js";
import {
  agentOn,
  apiOf,
  bodyOf,
  emulator,
  eventsOf,
  expectHealthy,
  historyTexts,
  instant,
  onCleanup,
  readTool,
  retries,
} from "./support.js";

type RawAnswer = { status?: number; sse?: readonly object[]; json?: object };

/** A node:http server on 127.0.0.1 answering every request with `answer` (SSE events or JSON). */
async function rawServer(answer: RawAnswer): Promise<{ url: string; bodies: unknown[] }> {
  const bodies: unknown[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      bodies.push(JSON.parse(Buffer.concat(chunks).toString("utf8")));
      if (answer.sse === undefined) {
        res.writeHead(answer.status ?? 200, { "content-type": "application/json" });
        res.end(JSON.stringify(answer.json ?? {}));
        return;
      }
      res.writeHead(200, { "content-type": "text/event-stream" });
      const frame = (e: object): string => {
        const type = (e as { type?: string }).type;
        return `${type === undefined || "choices" in e ? "" : `event: ${type}\n`}data: ${JSON.stringify(e)}\n\n`;
      };
      res.end(answer.sse.map(frame).join(""));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  onCleanup(() => new Promise((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, bodies };
}

const messageStart = {
  type: "message_start",
  message: {
    id: "msg_raw",
    type: "message",
    role: "assistant",
    model: "claude-sonnet-4-5",
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage: { input_tokens: 12, output_tokens: 1 },
  },
};
const partialText = [
  { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
  { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "PARTIAL answer that must not land" } },
  { type: "content_block_stop", index: 0 },
];
const finish = [
  { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 9 } },
  { type: "message_stop" },
];

async function runAgainst(provider: Provider, model: string) {
  const agent = createAgent({ provider, model, system: "Be brief.", tools: [readTool], retry: instant });
  const outcome = await agent.send("go");
  return { agent, outcome };
}

describe("answers that violate the provider's protocol", () => {
  test.each([
    [
      "an unknown content block type",
      { type: "content_block_start", index: 1, content_block: { type: "hologram", data: "?" } },
    ],
    [
      "a tool_use block without an id",
      { type: "content_block_start", index: 1, content_block: { type: "tool_use", name: "read", input: {} } },
    ],
  ])("Anthropic: %s ends the turn with a typed 'protocol' error; the log verifies", async (_name, bad) => {
    const raw = await rawServer({ sse: [messageStart, ...partialText, bad, ...finish] });
    const { agent, outcome } = await runAgainst(
      new AnthropicProvider({ apiKey: "test-key", baseURL: raw.url, stallTimeoutMs: 200 }),
      "claude-sonnet-4-5",
    );
    expect(outcome.reason).toMatchObject({ kind: "error", step: 1, code: "protocol" });
    expect(raw.bodies).toHaveLength(1);
    expect(retries(agent)).toEqual([]);
    expect(historyTexts(agent)).toEqual(["go"]);
    expect(JSON.stringify(agent.session.events)).not.toContain("PARTIAL");
    expectClosedLog(agent);
  });

  test("OpenAI: a tool call without an id ends the turn with a typed 'protocol' error; the log verifies", async () => {
    const head = { id: "chatcmpl-raw", object: "chat.completion.chunk", created: 1, model: "gpt-5-mini" };
    const chunk = (delta: object, finish_reason: string | null = null) => ({
      ...head,
      choices: [{ index: 0, delta, finish_reason }],
    });
    const raw = await rawServer({
      sse: [
        chunk({ role: "assistant", content: "" }),
        chunk({ content: "PARTIAL text" }),
        chunk({ tool_calls: [{ index: 0, type: "function", function: { name: "read", arguments: "" } }] }),
        chunk({}, "tool_calls"),
      ],
    });
    const provider = new OpenAICompatibleProvider({
      flavor: "openai",
      apiKey: "test-key",
      baseURL: `${raw.url}/v1`,
      stallTimeoutMs: 200,
    });
    const { agent, outcome } = await runAgainst(provider, "gpt-5-mini");
    expect(outcome.reason).toMatchObject({ kind: "error", step: 1, code: "protocol" });
    expect(historyTexts(agent)).toEqual(["go"]);
    expectClosedLog(agent);
  });

  test("an unknown model answered 404 by the provider is a final 'invalid-request' naming the model", async () => {
    const raw = await rawServer({
      status: 404,
      json: { type: "error", error: { type: "not_found_error", message: "model: claude-nonexistent-9" } },
    });
    const { agent, outcome } = await runAgainst(
      new AnthropicProvider({ apiKey: "test-key", baseURL: raw.url }),
      "claude-nonexistent-9",
    );
    expect(outcome.reason).toMatchObject({
      kind: "error",
      code: "invalid-request",
      message: expect.stringContaining("claude-nonexistent-9"),
    });
    expect(raw.bodies).toHaveLength(1);
    expectClosedLog(agent);
  });

  test("a model whose provider is not configured is refused when the agent is created", () => {
    const provider = new AnthropicProvider({ apiKey: "test-key", baseURL: "http://127.0.0.1:9" });
    const error = (() => {
      try {
        createAgent({ providers: { anthropic: provider }, model: "mystery:model-x" });
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(LoopError);
    expect(error).toMatchObject({ code: "unknown-provider", message: expect.stringContaining("mystery:model-x") });
  });
});

describe.each(["anthropic", "openai"] as const)("%s: tool arguments the model got wrong", (flavor) => {
  test.each([
    ["invalid JSON", '{"path": "a.txt"', "not valid JSON"],
    ["JSON of the wrong shape", '{"file": 7}', "Invalid arguments for read"],
  ])(
    "%s becomes an isError 'invalid-arguments' result the model sees; the turn continues",
    async (_name, args, said) => {
      const server = await emulator({
        model: new ScriptedEmulatorModel([
          { toolCalls: [{ name: "read", arguments: args }] },
          { text: "Sorry, retrying with a path." },
        ]),
      });
      const agent = agentOn(flavor, server);
      expect((await agent.send("read a.txt")).reason).toEqual({ kind: "completed" });
      const [result] = eventsOf(agent, "tool/result");
      expect(result!.data).toMatchObject({ isError: true, error: "invalid-arguments" });
      expect(eventsOf(agent, "tool/call")[0]!.data.arguments).toBe(args);

      const seen = server.requests[1]!.request!.messages.at(-1)!;
      expect(seen.role).toBe("tool");
      const part = seen.content[0]!;
      expect(part.type === "tool-result" && part.content[0]?.type === "text" ? part.content[0].text : "").toContain(
        said,
      );
      if (flavor === "anthropic") {
        // The wire carries the error flag; tool_use.input is an object even when the model's JSON was not.
        expect(part).toMatchObject({ isError: true });
        const uses = (
          bodyOf(server.requests[1]!).messages as { content: { type: string; input?: unknown }[] }[]
        ).flatMap((m) => m.content.filter((b) => b.type === "tool_use"));
        expect(uses[0]!.input).toEqual(args.startsWith('{"file"') ? { file: 7 } : {});
      }
      expectHealthy(agent, server, apiOf(flavor));
    },
  );
});

describe("missing keys", () => {
  test.each([
    ["ANTHROPIC_API_KEY", () => new AnthropicProvider({ baseURL: "http://127.0.0.1:9" })],
    ["OPENAI_API_KEY", () => new OpenAICompatibleProvider({ flavor: "openai", baseURL: "http://127.0.0.1:9/v1" })],
    ["DEEPSEEK_API_KEY", () => new OpenAICompatibleProvider({ flavor: "deepseek", baseURL: "http://127.0.0.1:9/v1" })],
  ] as const)("without %s the constructor throws ProviderError 'auth' naming the variable", (variable, construct) => {
    const saved = process.env[variable];
    delete process.env[variable];
    try {
      let error: unknown;
      try {
        construct();
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ProviderError);
      expect(error).toMatchObject({ code: "auth", retryable: false, message: expect.stringContaining(variable) });
    } finally {
      if (saved !== undefined) process.env[variable] = saved;
    }
  });
});
