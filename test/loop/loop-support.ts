// Builders and log checks for the loop behaviour tests (loop-*.test.ts): an agent over a
// ScriptedProvider with a recorder of every dispatch (the request and the step it belongs to),
// tools that run a callback inside `execute`, deferreds for driving time without timers, and
// the structural checks every test ends with (every turn and step closed, no orphan tool call,
// requests equal to their reconstruction from the log).
import { expect } from "vitest";
import { z } from "zod";
import { canonicalJson, type JsonValue } from "../../src/json/index.js";
import {
  type ProviderRequest,
  ScriptedProvider,
  type ScriptedStep,
  type ScriptedToolCall,
} from "../../src/llm/index.js";
import { type Agent, type AgentOptions, createAgent } from "../../src/loop/index.js";
import type { Message } from "../../src/messages/index.js";
import { reconstructRequests, verifyLog } from "../../src/reconstruct/index.js";
import type { EventType, SessionEvent, TurnEndReason } from "../../src/session/index.js";
import { defineTool, type ToolContext, type ToolDefinition } from "../../src/tools/index.js";
import { fixedClock } from "../support/builders.js";

export { type Deferred, deferred } from "../support/deferred.js";

/** A request as the provider saw it, with the seq of its step's `step/start`. */
export interface Dispatch {
  readonly request: ProviderRequest;
  readonly stepStartSeq: number;
}

export interface Rig {
  readonly agent: Agent;
  readonly provider: ScriptedProvider;
  /** Every request that reached the provider, in order, tagged with its step. */
  readonly dispatches: readonly Dispatch[];
}

export interface RigOptions extends Partial<Omit<AgentOptions, "provider" | "providers">> {
  /** Replies answered in order; afterwards every request gets `{ text: "done" }`. */
  readonly replies?: readonly ScriptedStep[];
}

const lastStepStart = (events: readonly SessionEvent[]): number =>
  events.findLast((e) => e.type === "step/start")?.seq ?? -1;

/**
 * A provider that answers `replies` (then "done") and records which step each request belongs
 * to. The step is read from the log at dispatch time: between a step's `step/start` and its
 * provider call only header events are appended.
 */
export function taggedProvider(
  replies: readonly ScriptedStep[],
  session: () => Agent | undefined,
): { provider: ScriptedProvider; dispatches: Dispatch[] } {
  const dispatches: Dispatch[] = [];
  const provider = new ScriptedProvider(replies, { fallback: { text: "done" } });
  const stream = provider.stream.bind(provider);
  provider.stream = (request) => {
    const agent = session();
    dispatches.push({ request, stepStartSeq: agent === undefined ? -1 : lastStepStart(agent.session.events) });
    return stream(request);
  };
  return { provider, dispatches };
}

/** Options shared by an agent and any later instance over its session. */
export function baseOptions(provider: ScriptedProvider, extra: Partial<AgentOptions> = {}): AgentOptions {
  return { provider, model: "scripted:test", clock: fixedClock(), ...extra };
}

/** A new agent over a ScriptedProvider answering `replies`, then "done". */
export function rig(options: RigOptions = {}): Rig {
  const { replies = [], ...rest } = options;
  let agent: Agent | undefined;
  const { provider, dispatches } = taggedProvider(replies, () => agent);
  agent = createAgent(baseOptions(provider, rest));
  return { agent, provider, dispatches };
}

/** A tool `name({ text })` whose execute runs `body` (default: echo the text). */
export function tool(
  name: string,
  body?: (args: { text: string }, context: ToolContext) => string | Promise<string>,
): ToolDefinition {
  return defineTool({
    name,
    description: `the ${name} tool`,
    input: z.object({ text: z.string() }),
    execute: (args, context) => (body === undefined ? `${name}: ${args.text}` : body(args, context)),
  });
}

/** A scripted reply calling each named tool once, in order, with `{ text: name#i }`. */
export const callsTo = (...names: string[]): { readonly toolCalls: readonly ScriptedToolCall[] } => ({
  toolCalls: names.map((name, i) => ({ name, arguments: { text: `${name}#${i}` } })),
});

/** The agent's events of one type, typed. */
export function eventsOf<T extends EventType>(agent: Agent, type: T): SessionEvent<T>[] {
  return agent.session.events.filter((e): e is SessionEvent<T> => e.type === type);
}

export const types = (agent: Agent): string[] => agent.session.events.map((e) => e.type);

export const turnEnds = (agent: Agent): TurnEndReason[] => eventsOf(agent, "turn/end").map((e) => e.data.reason);

export const lastEnd = (agent: Agent): TurnEndReason | undefined => turnEnds(agent).at(-1);

/** A request without its live parts, as reconstruction produces it. */
export function comparable(request: ProviderRequest): JsonValue {
  const { signal: _signal, sessionId: _sessionId, prefixLength: _prefixLength, ...rest } = request;
  return rest as unknown as JsonValue;
}

/** Paths of every own property whose value is `undefined`, anywhere inside `value`. */
export function undefinedPaths(value: unknown, path = "$"): string[] {
  if (typeof value !== "object" || value === null) return [];
  return Object.entries(value).flatMap(([key, v]) =>
    v === undefined ? [`${path}.${key}`] : undefinedPaths(v, `${path}.${key}`),
  );
}

/** Every object reachable from `value` that is not frozen. */
export function unfrozenPaths(value: unknown, path = "$"): string[] {
  if (typeof value !== "object" || value === null) return [];
  const own = Object.isFrozen(value) ? [] : [path];
  return [...own, ...Object.entries(value).flatMap(([key, v]) => unfrozenPaths(v, `${path}.${key}`))];
}

/** The text of a message's blocks (tool results included), joined. */
export function textOf(message: Message | undefined): string {
  if (message === undefined) return "";
  return message.content
    .map((b) =>
      b.type === "text"
        ? b.text
        : b.type === "tool-result"
          ? b.content.map((p) => (p.type === "text" ? p.text : "")).join("")
          : "",
    )
    .join("");
}

/**
 * P13/P14: every dispatched request equals the request reconstructed from the log for its step
 * (canonical JSON, live parts excluded), and carries no `undefined` anywhere.
 */
export function expectRequestsMatchLog(r: Rig): void {
  const rebuilt = reconstructRequests(r.agent.session.events);
  for (const [i, d] of r.dispatches.entries()) {
    const step = rebuilt.find((x) => x.stepStartSeq === d.stepStartSeq);
    expect(step, `dispatch ${i} (step/start at seq ${d.stepStartSeq}) is reconstructed`).toBeDefined();
    expect(canonicalJson(comparable(d.request)), `dispatch ${i}`).toBe(
      canonicalJson(step!.request as unknown as JsonValue),
    );
    expect(undefinedPaths(comparable(d.request)), `dispatch ${i}`).toEqual([]);
  }
}

/**
 * P20/P21 and verifyLog: every event inside a turn, exactly one `turn/end` per `turn/start` and
 * one `step/end` per `step/start`, and every tool-call block of the model answered by a
 * `tool/call` and a `tool/result` in its step.
 */
export function expectClosedLog(agent: Agent): void {
  const events = agent.session.events;
  expect(verifyLog(events).issues).toEqual([]);
  let turn: number | null = null;
  let step: number | null = null;
  const problems: string[] = [];
  for (const e of events) {
    if (e.type === "turn/start") {
      if (turn !== null) problems.push(`seq ${e.seq}: turn/start inside turn ${turn}`);
      turn = (e as SessionEvent<"turn/start">).data.turn;
      continue;
    }
    if (turn === null) problems.push(`seq ${e.seq}: ${e.type} outside any turn`);
    if (e.type === "step/start") {
      if (step !== null) problems.push(`seq ${e.seq}: step/start inside step ${step}`);
      step = (e as SessionEvent<"step/start">).data.step;
    } else if (e.type === "step/end") {
      if (step === null) problems.push(`seq ${e.seq}: step/end with no open step`);
      step = null;
    } else if (e.type === "turn/end") {
      if (step !== null) problems.push(`seq ${e.seq}: turn/end with step ${step} open`);
      turn = null;
    }
  }
  if (turn !== null) problems.push(`turn ${turn} never ended`);
  const blocks = eventsOf(agent, "assistant/message").flatMap((e) =>
    e.data.content.filter((b) => b.type === "tool-call").map((b) => b.callId),
  );
  const called = eventsOf(agent, "tool/call").map((e) => e.data.callId);
  const answered = eventsOf(agent, "tool/result").map((e) => e.data.callId);
  expect(problems).toEqual([]);
  expect(turnEnds(agent).filter((reason) => reason.kind === "error" && reason.code === "invariant")).toEqual([]);
  expect(called).toEqual(blocks);
  expect(answered).toEqual(blocks);
}

/** Runs `effect`, then returns `then()`: for one-line listeners that act and pass on. */
export function first<T>(effect: () => unknown, then: () => T): T {
  effect();
  return then();
}

/** Runs `fn` and returns what it threw (failing the test when it did not throw). */
export function caught(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  expect.fail("expected a throw");
}

/** Lets queued promise reactions and I/O callbacks run (one macrotask; not a timer). */
export const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
