// Builders for the loop tests: an agent over a ScriptedProvider, session-prefix contributors
// written with the canonical prepend pattern, a gate that holds a listener until the test opens
// it (no timers), and readers over the agent's log.
import { expect } from "vitest";
import { z } from "zod";
import type { EpochHeader } from "../../src/header/index.js";
import { ScriptedProvider, type ScriptedReply, type ScriptedStep } from "../../src/llm/index.js";
import { type Agent, type AgentOptions, type AgentPlugin, createAgent } from "../../src/loop/index.js";
import type { Message } from "../../src/messages/index.js";
import { reconstructRequests, verifyLog } from "../../src/reconstruct/index.js";
import type { EventType, SessionEvent, TurnEndReason } from "../../src/session/index.js";
import { defineTool } from "../../src/tools/index.js";
import { fixedClock } from "../support/builders.js";
import { deferred } from "../support/deferred.js";

/** A one-text-block user message (the usual shape of a prefix opener). */
export const user = (text: string): Message => ({ role: "user", content: [{ type: "text", text }] });

/** `read({ path })`: the tool the scripted model calls in round trips. */
export const readTool = defineTool({
  name: "read",
  description: "Reads a file.",
  input: z.object({ path: z.string() }),
  execute: ({ path }) => `contents of ${path}`,
});

/** A scripted reply calling `read` once per path (one step of a tool round trip). */
export const readCalls = (...paths: string[]): ScriptedReply => ({
  toolCalls: paths.map((path) => ({ name: "read", arguments: { path } })),
});

/** A provider answering `replies` in order, then "done" to anything else. */
export const scripted = (replies: readonly ScriptedStep[] = []): ScriptedProvider =>
  new ScriptedProvider(replies, { fallback: { text: "done" } });

/** Options for an agent (or a resumed/forked instance) over `provider`; `extra` wins. */
export function agentOptions(provider: ScriptedProvider, extra: Partial<AgentOptions> = {}): AgentOptions {
  return {
    provider,
    model: "scripted:test",
    system: "You are a careful assistant.",
    tools: [readTool],
    clock: fixedClock(),
    ...extra,
  };
}

export interface ScriptedAgentOptions extends Partial<Omit<AgentOptions, "provider" | "providers">> {
  readonly replies?: readonly ScriptedStep[];
}

/** A new agent whose model is a ScriptedProvider answering `replies` (then "done"). */
export function scriptedAgent(options: ScriptedAgentOptions = {}): { agent: Agent; provider: ScriptedProvider } {
  const { replies, ...rest } = options;
  const provider = scripted(replies);
  return { agent: createAgent(agentOptions(provider, rest)), provider };
}

export interface PrefixContributor {
  readonly name: string;
  readonly plugin: AgentPlugin;
  /** How many times the waterfall reached this contributor. */
  readonly calls: number;
  /** What it contributed, once per call that did not throw. */
  readonly runs: (readonly Message[])[];
}

/**
 * A plugin contributing `messages` to the session prefix with the canonical prepend,
 * `[...mine, ...await next()]`. A function is called with the 1-based call number, so a test
 * can tell a fresh composition from a stale one (or throw on a given call).
 */
export function prefixContributor(
  name: string,
  messages: readonly Message[] | ((call: number) => readonly Message[]),
): PrefixContributor {
  const contributor = {
    name,
    plugin: undefined as unknown as AgentPlugin,
    calls: 0,
    runs: [] as (readonly Message[])[],
  };
  contributor.plugin = (host) => {
    host.on("agent/session-prefix", async (_payload, next) => {
      contributor.calls++;
      const mine = typeof messages === "function" ? messages(contributor.calls) : messages;
      contributor.runs.push(mine);
      return [...mine, ...(await next())];
    });
    return undefined;
  };
  return contributor;
}

/**
 * Counts the runs of the agent's `agent/session-prefix` waterfall that reach its innermost
 * listener (registered after the agent's plugins, so a plugin that throws first is not counted).
 */
export function countPrefixRuns(agent: Agent): { readonly count: number } {
  const counter = { count: 0 };
  agent.hooks.on("agent/session-prefix", (_payload, next) => {
    counter.count++;
    return next();
  });
  return counter;
}

export { type Deferred, deferred } from "../support/deferred.js";

/** Holds a listener (which awaits `pass()`) until the test calls `open()`. */
export interface Gate {
  /** Resolves once a listener is waiting at the gate. */
  readonly reached: Promise<void>;
  /** For the listener: marks the gate reached and waits until it opens. */
  pass(): Promise<void>;
  open(): void;
}

export function gate(): Gate {
  const reached = deferred();
  const opened = deferred();
  return {
    reached: reached.promise,
    pass() {
      reached.resolve();
      return opened.promise;
    },
    open: () => opened.resolve(),
  };
}

/** The agent's events of one type, typed. */
export function eventsOf<T extends EventType>(agent: Agent, type: T): SessionEvent<T>[] {
  return agent.session.events.filter((e): e is SessionEvent<T> => e.type === type);
}

/** Every `request/header` snapshot of the log, in order. */
export function headerSnapshots(agent: Agent): { readonly reason: string; readonly header: EpochHeader }[] {
  return eventsOf(agent, "request/header").map((e) => ({
    reason: e.data.reason,
    header: e.data.header as unknown as EpochHeader,
  }));
}

/** How each turn of the log ended. */
export const turnEnds = (agent: Agent): TurnEndReason[] => eventsOf(agent, "turn/end").map((e) => e.data.reason);

/** The events whose serialized form contains `marker` (to find every durable copy of a value). */
export const eventsMentioning = (agent: Agent, marker: string): SessionEvent[] =>
  agent.session.events.filter((e) => JSON.stringify(e).includes(marker));

/**
 * The log verifies, and reconstructs exactly the requests `providers` received (in order,
 * across instances), messages included: what was sent is what the log says was sent.
 */
export function expectLogMatchesRequests(agent: Agent, ...providers: Pick<ScriptedProvider, "requests">[]): void {
  expect(verifyLog(agent.session.events).issues).toEqual([]);
  const sent = providers.flatMap((p) =>
    p.requests.map(({ signal: _signal, sessionId: _sessionId, prefixLength: _prefixLength, ...rest }) => rest),
  );
  expect(reconstructRequests(agent.session.events).map((r) => r.request)).toEqual(sent);
}
