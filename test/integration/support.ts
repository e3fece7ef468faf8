// Shared pieces of the integration tests: real agents talking to the emulator's HTTP server
// through the real SDK adapters. An emulator (and any temp store) per test, closed afterwards;
// one builder per adapter; retries that never sleep; and the checks every test ends with — the
// log verifies, every turn and step is closed, and every request that reached the wire is the
// request the log reconstructs (attempt by attempt, as far as each wire can carry it).
import { expect } from "vitest";
import { afterThisTest } from "../support/test-cleanups.js";
import { z } from "zod";
import {
  countTokens,
  type EmulatorOptions,
  type EmulatorServer,
  type RecordedRequest,
  ScriptedEmulatorModel,
  startEmulator,
} from "../../src/emulator/index.js";
import {
  AnthropicProvider,
  OpenAICompatibleProvider,
  OpenAIResponsesProvider,
  type Provider,
  RESPONSES_API,
  withJsonModeInstruction,
} from "../../src/llm/index.js";
import {
  type Agent,
  type AgentOptions,
  type AgentPlugin,
  createAgent,
  type RetryPolicy,
} from "../../src/loop/index.js";
import type { AssistantContent, Message, Usage } from "../../src/messages/index.js";
import { reconstructRequests } from "../../src/reconstruct/index.js";
import type { EventType, SessionEvent } from "../../src/session/index.js";
import type { JsonlSessionStore } from "../../src/store/index.js";
import { defineTool } from "../../src/tools/index.js";
import { expectClosedLog } from "../loop/loop-support.js";
import { type TempJsonlRoot, tempJsonlRoot } from "../store/jsonl-harness.js";
import { fixedClock } from "../support/builders.js";

// The emulator runs in this process: its tokenizer's first use blocks the event loop for a
// while, which a 200 ms stall timeout would read as a silent provider. Load it up front.
countTokens("warm the tokenizer up");

/** Runs `cleanup` after the current test (last registered, first run). */
export function onCleanup(cleanup: () => Promise<void>): void {
  afterThisTest(cleanup);
}

/** An emulator closed after the current test. */
export async function emulator(options: EmulatorOptions = {}): Promise<EmulatorServer> {
  const server = await startEmulator(options);
  afterThisTest(() => server.close());
  return server;
}

/** A JSONL store over a temp dir removed after the current test. */
export async function tempStore(): Promise<JsonlSessionStore> {
  const dir: TempJsonlRoot = await tempJsonlRoot();
  afterThisTest(() => dir.cleanup());
  return dir.open();
}

export type Flavor = "anthropic" | "openai" | "deepseek" | "responses";
/** The wire a flavor speaks, as the emulator parses it. */
export type Api = "anthropic" | "openai" | "responses";

/** The real adapter for `flavor`, pointed at `server`. */
export function providerFor(flavor: Flavor, server: EmulatorServer, stallTimeoutMs = 200): Provider {
  if (flavor === "anthropic")
    return new AnthropicProvider({ apiKey: "test-key", baseURL: server.anthropicBaseURL, stallTimeoutMs });
  if (flavor === "responses")
    return new OpenAIResponsesProvider({ apiKey: "test-key", baseURL: server.openaiBaseURL, stallTimeoutMs });
  return new OpenAICompatibleProvider({ flavor, apiKey: "test-key", baseURL: server.openaiBaseURL, stallTimeoutMs });
}

export const MODELS: { readonly [F in Flavor]: string } = {
  anthropic: "claude-sonnet-4-5",
  openai: "gpt-5-mini",
  deepseek: "deepseek-chat",
  responses: "gpt-5.4-mini",
};

/** Backoff that takes no time; jitter centred, so a computed delay is exactly the base. */
export const instant: RetryPolicy = { sleep: async () => undefined, random: () => 0.5 };

/** `read({ path })`, a zod tool. */
export const readTool = defineTool({
  name: "read",
  description: "Reads a file and returns its contents.",
  input: z.object({ path: z.string() }),
  execute: ({ path }) => `contents of ${path}: forty-two lines`,
});

export interface AgentSetup extends Partial<Omit<AgentOptions, "provider" | "providers">> {
  readonly stallTimeoutMs?: number;
}

/** A new agent of `flavor` against `server`, with the read tool, a short system prompt and instant retries. */
export function agentOn(flavor: Flavor, server: EmulatorServer, setup: AgentSetup = {}): Agent {
  const { stallTimeoutMs, ...options } = setup;
  return createAgent(optionsFor(flavor, server, options, stallTimeoutMs));
}

/** Options for an agent (or a resumed instance) of `flavor` against `server`; `extra` wins. */
export function optionsFor(
  flavor: Flavor,
  server: EmulatorServer,
  extra: Partial<AgentOptions> = {},
  stallTimeoutMs?: number,
): AgentOptions {
  return {
    provider: providerFor(flavor, server, stallTimeoutMs),
    model: MODELS[flavor],
    system: "You are a careful assistant working in a small repository. Answer briefly.",
    tools: [readTool],
    retry: instant,
    clock: fixedClock(),
    ...extra,
  };
}

/** A model that answers "read <path>" with a read call, a tool result with a summary, anything else with a short text. */
export function readingModel(): ScriptedEmulatorModel {
  return new ScriptedEmulatorModel([], {
    fallback: (request) => {
      const last = request.messages.at(-1)!;
      if (last.role === "tool") return { text: "The file has forty-two lines." };
      const text = last.content[0]?.type === "text" ? last.content[0].text : "";
      const path = /^read (\S+)/.exec(text)?.[1];
      return path === undefined ? { text: `Noted: ${text}.` } : { toolCalls: [{ name: "read", arguments: { path } }] };
    },
  });
}

/** A plugin contributing `messages` to the session prefix with the canonical prepend. */
export function prefixPlugin(messages: readonly Message[]): AgentPlugin {
  return (host) => {
    host.on("agent/session-prefix", async (_payload, next) => [...messages, ...(await next())]);
    return undefined;
  };
}

export const user = (text: string): Message => ({ role: "user", content: [{ type: "text", text }] });

/** `words` distinct words (the tokenizer cannot merge them away): about 2.5 tokens each. */
export function filler(words: number, seed = "w"): string {
  return Array.from({ length: words }, (_, i) => ` ${seed}${i.toString(36)}`).join("");
}

/** A `<system-reminder>` prefix opener of `words` distinct words (400 words ≈ 1k tokens). */
export const catalog = (words: number, seed = "skill"): Message[] => [
  user(`<system-reminder>Available skills:${filler(words, seed)}</system-reminder>`),
];

export function eventsOf<T extends EventType>(agent: Agent, type: T): SessionEvent<T>[] {
  return agent.session.events.filter((e): e is SessionEvent<T> => e.type === type);
}

export const retries = (agent: Agent) => eventsOf(agent, "llm/retry").map((e) => e.data);

/** The usage logged on each assistant message, in order. */
export const usages = (agent: Agent): Usage[] => eventsOf(agent, "assistant/message").map((e) => e.data.usage!);

export const totalInput = (u: Usage): number => u.inputTokens + u.cacheReadTokens + u.cacheWriteTokens;

/** The requests the emulator answered with a complete response. */
export const answered = (server: EmulatorServer): RecordedRequest[] =>
  server.requests.filter((r) => r.status === 200 && r.fault === undefined);

/** Recorded JSON bodies as plain objects, for shape assertions. */
export const bodyOf = (r: RecordedRequest): Record<string, unknown> => r.body as Record<string, unknown>;

/**
 * Messages as a wire carries them: what the log holds minus what the wire cannot express.
 * Anthropic drops unsigned reasoning and re-serializes tool arguments as an object; OpenAI
 * drops reasoning and tool-result error flags and joins tool-result text. Empty texts vanish.
 * Responses is OpenAI's view with the model's own call ids (logged in `providerData`) in place
 * of the loop's, and without assistant messages that leave no item (only reasoning, or empty).
 */
export function wireView(messages: readonly Message[], api: Api): unknown[] {
  if (api === "responses") return wireView(withModelCallIds(messages), "openai");
  return messages.map((m) => {
    if (m.role === "tool") {
      const r = m.content[0];
      if (api === "anthropic")
        return {
          role: "tool",
          callId: r.callId,
          isError: r.isError,
          content: r.content.map((p) => (p.type === "text" ? { type: "text", text: p.text || " " } : p)),
        };
      return {
        role: "tool",
        callId: r.callId,
        text: r.content.map((p) => (p.type === "text" ? p.text : "[image]")).join("\n"),
      };
    }
    if (m.role === "user")
      return { role: "user", content: m.content.filter((b) => b.type !== "text" || b.text !== "") };
    return { role: "assistant", content: m.content.flatMap((b) => assistantWire(b, api)) };
  });
}

/** The messages with each Responses tool call's (and its result's) call id the one the model gave. */
function withModelCallIds(messages: readonly Message[]): Message[] {
  const ids = new Map<string, string>();
  const leavesItems = (m: Message): boolean =>
    m.role !== "assistant" || m.content.some((b) => b.type === "tool-call" || (b.type === "text" && b.text !== ""));
  return messages.filter(leavesItems).map((m): Message => {
    if (m.role === "assistant")
      return {
        role: "assistant",
        content: m.content.map((b) => {
          const own = b.providerData?.api === RESPONSES_API ? b.providerData.callId : undefined;
          if (b.type !== "tool-call" || typeof own !== "string") return b;
          ids.set(b.callId, own);
          return { ...b, callId: own };
        }),
      };
    if (m.role === "tool") {
      const r = m.content[0];
      return { role: "tool", content: [{ ...r, callId: ids.get(r.callId) ?? r.callId }] };
    }
    return m;
  });
}

function assistantWire(b: AssistantContent, api: "anthropic" | "openai"): unknown[] {
  if (b.type === "text") return b.text === "" ? [] : [{ type: "text", text: b.text }];
  if (b.type === "reasoning")
    return api === "anthropic" && b.signature !== undefined
      ? [{ type: "reasoning", text: b.text, signature: b.signature }]
      : [];
  if (api === "openai") return [{ type: "tool-call", callId: b.callId, name: b.name, arguments: b.arguments }];
  let input: unknown;
  try {
    input = JSON.parse(b.arguments);
  } catch {
    input = {};
  }
  return [
    {
      type: "tool-call",
      callId: b.callId,
      name: b.name,
      arguments: JSON.stringify(input !== null && typeof input === "object" && !Array.isArray(input) ? input : {}),
    },
  ];
}

/**
 * Every parsed request the emulator received (retried attempts included) equals, in wire view,
 * the request the log reconstructs for its step — in order, every step covered — and its
 * system prompt and tool names are the header's.
 */
export function expectWireMatchesLog(agent: Agent, server: EmulatorServer, api: Api, options: WireOptions = {}): void {
  const rebuilt = reconstructRequests(agent.session.events).map((r) => ({
    // JSON mode (DeepSeek) states a structured output's schema in the system prompt.
    system:
      options.jsonMode === true && r.request.output !== undefined
        ? withJsonModeInstruction(r.request.system, r.request.output)
        : (r.request.system ?? ""),
    tools: (r.request.tools ?? []).map((t) => t.name),
    messages: wireView(r.request.messages, api),
  }));
  const sent = server.requests.flatMap((r) =>
    r.request === undefined
      ? []
      : [
          {
            system: r.request.system,
            tools: r.request.tools.map((t) => t.name),
            messages: wireView(r.request.messages, api),
          },
        ],
  );
  let at = 0;
  const covered = new Set<number>();
  for (const [i, request] of sent.entries()) {
    while (at < rebuilt.length && JSON.stringify(rebuilt[at]) !== JSON.stringify(request)) at++;
    expect(at, `wire request ${i} matches a logged request at or after the previous one`).toBeLessThan(rebuilt.length);
    covered.add(at);
  }
  expect(covered.size, "every logged request reached the wire").toBe(rebuilt.length);
}

/** How the adapter maps a request: `jsonMode` — structured output as DeepSeek's JSON mode (the schema in the system prompt). */
export interface WireOptions {
  readonly jsonMode?: boolean;
}

/** The checks every integration test ends with. */
export function expectHealthy(agent: Agent, server: EmulatorServer, api: Api, options: WireOptions = {}): void {
  expectClosedLog(agent);
  expectWireMatchesLog(agent, server, api, options);
}

export const apiOf = (flavor: Flavor): Api =>
  flavor === "anthropic" ? "anthropic" : flavor === "responses" ? "responses" : "openai";

/** The text of the derived history, one string per message (to prove no partial output landed). */
export const historyTexts = (agent: Agent): string[] =>
  agent.session
    .deriveMessages()
    .map((m) =>
      m.content
        .map((b) =>
          b.type === "text" || b.type === "reasoning"
            ? b.text
            : b.type === "tool-call"
              ? `${b.name}(${b.arguments})`
              : "result",
        )
        .join("|"),
    );
