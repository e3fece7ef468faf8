// Builders for the replay tests: an app (agent options over a scripted model and a JSONL store in
// a temp dir) that records a session, then the same app's options for replaying it.
import { afterEach, beforeEach } from "vitest";
import { z } from "zod";
import { type ScriptedStep, ScriptedProvider } from "../../src/llm/index.js";
import { type AgentOptions, type AgentPlugin, createAgent } from "../../src/loop/index.js";
import type { Message } from "../../src/messages/index.js";
import type { ReplayOptions } from "../../src/replay/index.js";
import { defineTool } from "../../src/tools/index.js";
import type { JsonlSessionStore } from "../../src/store/index.js";
import { fixedClock } from "../support/builders.js";
import { type TempJsonlRoot, tempJsonlRoot } from "../store/jsonl-harness.js";

/** The model every replay test records with: priced in the built-in registry, Anthropic cache rules. */
export const MODEL = "anthropic:claude-sonnet-4-5";

/** A system prompt long enough (~1,300 tokens) that requests pass Anthropic's minimum cacheable length. */
export const LONG_SYSTEM = [
  "You are a careful assistant working in a repository.",
  ...Array.from(
    { length: 60 },
    (_, i) => `Rule ${i + 1}: answer in plain words, cite the file you read, and never guess a path.`,
  ),
].join("\n");

export const user = (text: string): Message => ({ role: "user", content: [{ type: "text", text }] });

export const readTool = defineTool({
  name: "read",
  description: "Reads a file.",
  input: z.object({ path: z.string() }),
  readOnly: true,
  execute: ({ path }) => `contents of ${path}`,
});

/** `read` whose schema gained a field (the change a tool's author makes). */
export const readToolWithEncoding = defineTool({
  name: "read",
  description: "Reads a file.",
  input: z.object({ path: z.string(), encoding: z.enum(["utf8", "base64"]).optional() }),
  readOnly: true,
  execute: ({ path }) => `contents of ${path}`,
});

/** A prefix contributor with the canonical prepend pattern, named by its function. */
export function contributor(name: string, text: () => string): AgentPlugin {
  const plugin: AgentPlugin = (host) =>
    host.on("agent/session-prefix", async (_payload, next) => [user(text()), ...(await next())]);
  Object.defineProperty(plugin, "name", { value: name });
  return plugin;
}

/** The app's options (the ones it records with and replays with), over `provider`. */
export function appOptions(provider: ScriptedProvider, extra: Partial<AgentOptions> = {}): AgentOptions {
  return {
    provider,
    model: MODEL,
    system: LONG_SYSTEM,
    tools: [readTool],
    clock: fixedClock(),
    ...extra,
  };
}

/** A provider answering `replies` in order, then "done". */
export const scripted = (replies: readonly ScriptedStep[] = []): ScriptedProvider =>
  new ScriptedProvider(replies, { fallback: { text: "done" } });

/** What a typical session's model does: a tool round trip, then a final answer, per turn. */
export const TOOL_TURN: readonly ScriptedStep[] = [
  { toolCalls: [{ name: "read", arguments: { path: "a.txt" } }], usage: { inputTokens: 1500, outputTokens: 20 } },
  { text: "a.txt says hello", usage: { inputTokens: 30, cacheReadTokens: 1500, outputTokens: 8 } },
];

/** Records a session: each prompt is one turn; returns its id. */
export async function record(options: AgentOptions, prompts: readonly string[]): Promise<string> {
  const agent = createAgent(options);
  for (const prompt of prompts) await agent.send(prompt);
  await agent.dispose();
  return agent.session.id;
}

/** The app's options as a replay takes them (the provider is ignored by the replay). */
export const replayOptions = (options: AgentOptions, extra: Partial<ReplayOptions> = {}): ReplayOptions => ({
  ...options,
  ...extra,
});

/** A fresh temp dir and JSONL store for each test (closed and removed after it), handed to `set`. */
export function useTempStore(set: (temp: { dir: TempJsonlRoot; store: JsonlSessionStore }) => void): void {
  let dir: TempJsonlRoot | undefined;
  beforeEach(async () => {
    dir = await tempJsonlRoot();
    set({ dir, store: dir.open() });
  });
  afterEach(() => dir?.cleanup());
}
