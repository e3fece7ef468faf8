// createCompaction: the compaction gate the loop calls from `agent/pre-step` as
// `compactIfNeeded(agent, fullSystemPrompt, sessionPrefix, signal)`, plus `compactNow` for a
// manual `agent.compact()`. Above the threshold it first prunes oversized tool results, then
// summarizes the oldest balanced head region with a one-shot call that reuses the cached prefix,
// and lands one replacement `user/message` (surfaceOp replace, with provenance) inside
// `compact/start` … `compact/end`. It never touches the system prompt or the session prefix:
// they live in the header, not on the surface.
import { errorMessage } from "../errors/index.js";
import { canonicalJson, type JsonValue } from "../json/index.js";
import { estimateTokens, ModelRegistry, valueCounter } from "../llm/core.js";
import type { Message } from "../messages/index.js";
import type { Agent, CompactionGate } from "../loop/index.js";
import type { SessionEvent } from "../session/index.js";
import { measurePressure } from "./pressure.js";
import { type PruneCandidate, prunedContent, pruneCandidates } from "./prune.js";
import { chooseRegion } from "./region.js";
import { summarize } from "./summarize.js";
import { CompactionError, type CompactionOptions, type Pressure } from "./types.js";

export interface Compaction extends CompactionGate {
  /** Compacts now (a manual `agent.compact()`), whatever the pressure. */
  compactNow(
    agent: Agent,
    fullSystemPrompt: string,
    sessionPrefix: readonly Message[],
    signal: AbortSignal,
  ): Promise<void>;
  /** The last pressure measured for `agent` (for status lines and tests). */
  lastPressure(agent: Agent): Pressure | undefined;
}

/** One gate: its settings (the options, defaults filled in) and what it last measured per agent. */
interface Gate {
  readonly models: ModelRegistry;
  readonly contextWindow: number | undefined;
  readonly measure: (value: unknown) => number;
  readonly ratio: number;
  readonly keepRecent: number;
  readonly pruneAbove: number;
  readonly pruneKeep: number;
  readonly summaryMaxTokens: number;
  /** Per agent: the header it was last measured under (system, tools, prefix) and that pressure. */
  readonly seen: WeakMap<Agent, { headerKey: string; pressure: Pressure }>;
}

/** What one compaction works from: the derived history, each message's tokens, where the kept recent tail starts. */
interface Plan {
  readonly pressure: Pressure;
  readonly window: number;
  readonly history: readonly Message[];
  readonly sizes: readonly number[];
  readonly tailStart: number;
}

export function createCompaction(options: CompactionOptions = {}): Compaction {
  const gate: Gate = {
    models: options.models ?? new ModelRegistry(),
    contextWindow: options.contextWindow,
    measure: valueCounter(options.countTokens ?? estimateTokens),
    ratio: options.thresholdRatio ?? 0.8,
    keepRecent: options.keepRecentTokens ?? 8_000,
    pruneAbove: options.pruneAboveTokens ?? 4_000,
    pruneKeep: options.pruneKeepTokens ?? 500,
    summaryMaxTokens: options.summaryMaxTokens ?? 2_000,
    seen: new WeakMap(),
  };
  return {
    async compactIfNeeded(agent, fullSystemPrompt, sessionPrefix, signal) {
      const pressure = pressureOf(gate, agent, fullSystemPrompt, sessionPrefix);
      if (pressure.total <= gate.ratio * windowOf(gate, agent)) return;
      await compact(gate, agent, fullSystemPrompt, sessionPrefix, signal, "auto");
    },
    async compactNow(agent, fullSystemPrompt, sessionPrefix, signal) {
      pressureOf(gate, agent, fullSystemPrompt, sessionPrefix);
      await compact(gate, agent, fullSystemPrompt, sessionPrefix, signal, "manual");
    },
    lastPressure: (agent) => gate.seen.get(agent)?.pressure,
  };
}

function windowOf(gate: Gate, agent: Agent): number {
  return gate.contextWindow ?? gate.models.find(agent.model)?.contextWindow ?? 200_000;
}

/** Measures `agent`'s next request; the log is re-read only while the header it was measured under holds. */
function pressureOf(gate: Gate, agent: Agent, system: string, prefix: readonly Message[]): Pressure {
  const tools = agent.tools.schemas();
  const headerKey = canonicalJson({ system, tools, prefix } as unknown as JsonValue);
  const unchanged = gate.seen.get(agent)?.headerKey === headerKey;
  const pressure = measurePressure({
    events: unchanged ? agent.session.events : [],
    surfaceSeqs: agent.session.surfaceSeqs(),
    history: agent.session.deriveMessages(),
    system,
    tools,
    prefix,
    measure: gate.measure,
  });
  gate.seen.set(agent, { headerKey, pressure });
  return pressure;
}

/**
 * One compaction, inside `compact/start` … `compact/end`: prune oversized tool results, then
 * (unless pruning brought an automatic one under the threshold) summarize the head. A failure is
 * logged on `compact/end` and reported on `agent/error`, never thrown into the turn.
 */
async function compact(
  gate: Gate,
  agent: Agent,
  system: string,
  prefix: readonly Message[],
  signal: AbortSignal,
  trigger: "auto" | "manual",
): Promise<void> {
  const plan = planOf(gate, agent, gate.seen.get(agent)?.pressure ?? pressureOf(gate, agent, system, prefix), trigger);
  if (plan === undefined) return;
  const session = agent.session;
  const turn = session.openTurn;
  if (turn === null) return;
  session.append("compact/start", { turn, trigger, estimatedTokens: plan.pressure.total });
  try {
    if (!pruneResults(gate, agent, plan, trigger)) await summarizeHead(gate, agent, system, prefix, signal, turn);
    session.append("compact/end", { turn });
  } catch (error) {
    session.append("compact/end", { turn, error: signal.aborted ? "aborted" : errorMessage(error) });
    if (!signal.aborted) agent.hooks.emit("agent/error", { agent, error, where: "compaction" });
  } finally {
    gate.seen.delete(agent); // the surface changed: the next measure starts fresh
  }
}

/**
 * What to compact from, or undefined when an automatic compaction is not worth a summary call
 * (e.g. right after one: it would only summarize the last checkpoint again, every step). Throws
 * `CompactionError('floor')` when the request cannot fit the window even after compaction.
 */
function planOf(gate: Gate, agent: Agent, pressure: Pressure, trigger: "auto" | "manual"): Plan | undefined {
  const window = windowOf(gate, agent);
  const history = agent.session.deriveMessages();
  const sizes = history.map((m) => gate.measure(m));
  let tailStart = history.length;
  for (let tail = 0; tailStart > 0 && tail < gate.keepRecent; ) tail += sizes[--tailStart]!;
  const tailTokens = sizes.slice(tailStart).reduce((a, b) => a + b, 0);
  const recent = Math.min(tailTokens, gate.keepRecent);
  const floor = pressure.system + pressure.tools + pressure.prefix + recent;
  if (floor > window) {
    throw new CompactionError(
      "floor",
      `the request cannot fit the ${window}-token window even after compaction: system ${pressure.system} + tools ${pressure.tools} + session prefix ${pressure.prefix} + minimum recent history ${recent} = ${floor} tokens`,
    );
  }
  const compressible = pressure.total - floor;
  if (
    trigger === "auto" &&
    compressible < 2 * gate.summaryMaxTokens &&
    pruneCandidates(history, sizes, tailStart, gate.pruneAbove).length === 0
  ) {
    if (pressure.total > window)
      throw new CompactionError(
        "floor",
        `the request (${pressure.total} tokens) exceeds the ${window}-token window and nothing is left to compact`,
      );
    return undefined;
  }
  return { pressure, window, history, sizes, tailStart };
}

/**
 * Replaces each oversized tool result outside the kept tail by its pruned form — and, while the
 * request still could not fit the window at all, those inside the tail, largest first (found from
 * outside: one 3 MB result in the tail failed that turn and every later one, since a summary must
 * leave the tail intact). True when that brought an automatic compaction under the threshold.
 */
function pruneResults(gate: Gate, agent: Agent, plan: Plan, trigger: "auto" | "manual"): boolean {
  const threshold = gate.ratio * plan.window;
  const { history, sizes, tailStart } = plan;
  const head = pruneCandidates(history, sizes, tailStart, gate.pruneAbove);
  let saved = prune(gate, agent, head, trigger === "auto" ? plan.pressure.total - threshold : Number.POSITIVE_INFINITY);
  if (trigger === "auto" && plan.pressure.total - saved <= threshold) return true;
  if (plan.pressure.total - saved <= plan.window) return false;
  const tail = pruneCandidates(history, sizes, history.length, gate.pruneAbove, tailStart);
  saved += prune(gate, agent, tail, plan.pressure.total - saved - threshold);
  return trigger === "auto" && plan.pressure.total - saved <= threshold;
}

/** Prunes `candidates` in order until `enough` tokens are saved; the tokens saved. */
function prune(gate: Gate, agent: Agent, candidates: readonly PruneCandidate[], enough: number): number {
  const session = agent.session;
  let saved = 0;
  for (const c of candidates) {
    if (saved >= enough) break;
    const original = session.events[session.surfaceSeqs()[c.index]!] as SessionEvent<"tool/result">;
    const content = prunedContent(c.content, gate.pruneKeep);
    session.append(
      "tool/result",
      {
        turn: original.data.turn,
        step: original.data.step,
        callId: c.callId,
        content,
        isError: c.isError,
        meta: { prunedFrom: original.seq, originalTokens: c.tokens },
      },
      { op: "replace", start: c.index, end: c.index },
    );
    saved += c.tokens - gate.measure(content);
  }
  return saved;
}

/** Summarizes the oldest balanced head region in one call and lands the summary in its place. */
async function summarizeHead(
  gate: Gate,
  agent: Agent,
  system: string,
  prefix: readonly Message[],
  signal: AbortSignal,
  turn: number,
): Promise<void> {
  const session = agent.session;
  const history = session.deriveMessages();
  const sizes = history.map((m) => gate.measure(m));
  const region = chooseRegion(history, sizes, gate.keepRecent);
  if (region === undefined)
    throw new CompactionError("no-region", "no tool-pairing-balanced head region leaves the recent tail intact");
  const { text, result } = await summarize({
    provider: agent.provider,
    model: agent.model,
    system,
    tools: agent.tools.schemas(),
    prefix,
    region: history.slice(0, region.end + 1),
    maxTokens: gate.summaryMaxTokens,
    sessionId: session.id,
    signal,
  });
  const summaryTokens = gate.measure(text);
  if (summaryTokens >= region.tokens)
    throw new CompactionError(
      "summary-too-long",
      `the summary (${summaryTokens} tokens) is not smaller than what it replaces (${region.tokens} tokens)`,
    );
  session.append("compact/summary", {
    turn,
    model: agent.model,
    start: region.start,
    end: region.end,
    regionTokens: region.tokens,
    summaryTokens,
    ...(result.usage === undefined ? {} : { usage: { ...result.usage } }),
  });
  session.append(
    "user/message",
    { content: [{ type: "text", text }], source: "compaction" },
    { op: "replace", start: region.start, end: region.end },
  );
}
