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
import { prunedContent, pruneCandidates } from "./prune.js";
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

export function createCompaction(options: CompactionOptions = {}): Compaction {
  const models = options.models ?? new ModelRegistry();
  const measure = valueCounter(options.countTokens ?? estimateTokens);
  const ratio = options.thresholdRatio ?? 0.8;
  const keepRecent = options.keepRecentTokens ?? 8_000;
  const pruneAbove = options.pruneAboveTokens ?? 4_000;
  const pruneKeep = options.pruneKeepTokens ?? 500;
  const summaryMaxTokens = options.summaryMaxTokens ?? 2_000;
  const seen = new WeakMap<Agent, { headerKey: string; pressure: Pressure }>();

  const windowOf = (agent: Agent): number =>
    options.contextWindow ?? models.find(agent.model)?.contextWindow ?? 200_000;

  const pressureOf = (agent: Agent, system: string, prefix: readonly Message[]): Pressure => {
    const tools = agent.tools.schemas();
    const headerKey = canonicalJson({ system, tools, prefix } as unknown as JsonValue);
    const unchanged = seen.get(agent)?.headerKey === headerKey;
    const pressure = measurePressure({
      events: unchanged ? agent.session.events : [],
      surfaceSeqs: agent.session.surfaceSeqs(),
      history: agent.session.deriveMessages(),
      system,
      tools,
      prefix,
      measure,
    });
    seen.set(agent, { headerKey, pressure });
    return pressure;
  };

  const run = async (
    agent: Agent,
    system: string,
    prefix: readonly Message[],
    signal: AbortSignal,
    trigger: "auto" | "manual",
  ): Promise<void> => {
    const pressure = seen.get(agent)?.pressure ?? pressureOf(agent, system, prefix);
    const window = windowOf(agent);
    const history = agent.session.deriveMessages();
    const sizes = history.map((m) => measure(m));
    let tailStart = history.length;
    for (let tail = 0; tailStart > 0 && tail < keepRecent; ) tail += sizes[--tailStart]!;
    const tailTokens = sizes.slice(tailStart).reduce((a, b) => a + b, 0);
    const floor = pressure.system + pressure.tools + pressure.prefix + Math.min(tailTokens, keepRecent);
    if (floor > window) {
      throw new CompactionError(
        "floor",
        `the request cannot fit the ${window}-token window even after compaction: system ${pressure.system} + tools ${pressure.tools} + session prefix ${pressure.prefix} + minimum recent history ${Math.min(tailTokens, keepRecent)} = ${floor} tokens`,
      );
    }
    // Too little above the floor to be worth a summary call (e.g. right after a compaction): an
    // automatic attempt would only summarize the last checkpoint again, every step.
    const compressible = pressure.total - floor;
    if (
      trigger === "auto" &&
      compressible < 2 * summaryMaxTokens &&
      pruneCandidates(history, sizes, tailStart, pruneAbove).length === 0
    ) {
      if (pressure.total > window)
        throw new CompactionError(
          "floor",
          `the request (${pressure.total} tokens) exceeds the ${window}-token window and nothing is left to compact`,
        );
      return;
    }
    const session = agent.session;
    const turn = session.openTurn;
    if (turn === null) return;
    session.append("compact/start", { turn, trigger, estimatedTokens: pressure.total });
    try {
      const threshold = ratio * window;
      let saved = 0;
      for (const c of pruneCandidates(history, sizes, tailStart, pruneAbove)) {
        const original = session.events[session.surfaceSeqs()[c.index]!] as SessionEvent<"tool/result">;
        const content = prunedContent(c.content, pruneKeep);
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
        saved += c.tokens - measure(content);
        if (trigger === "auto" && pressure.total - saved <= threshold) {
          session.append("compact/end", { turn });
          return;
        }
      }
      await summarizeHead(agent, system, prefix, signal, turn);
      session.append("compact/end", { turn });
    } catch (error) {
      session.append("compact/end", {
        turn,
        error: signal.aborted ? "aborted" : errorMessage(error),
      });
      if (!signal.aborted) agent.hooks.emit("agent/error", { agent, error, where: "compaction" });
    } finally {
      seen.delete(agent); // the surface changed: the next measure starts fresh
    }
  };

  const summarizeHead = async (
    agent: Agent,
    system: string,
    prefix: readonly Message[],
    signal: AbortSignal,
    turn: number,
  ): Promise<void> => {
    const session = agent.session;
    const history = session.deriveMessages();
    const sizes = history.map((m) => measure(m));
    const region = chooseRegion(history, sizes, keepRecent);
    if (region === undefined)
      throw new CompactionError("no-region", "no tool-pairing-balanced head region leaves the recent tail intact");
    const { text, result } = await summarize({
      provider: agent.provider,
      model: agent.model,
      system,
      tools: agent.tools.schemas(),
      prefix,
      region: history.slice(0, region.end + 1),
      maxTokens: summaryMaxTokens,
      sessionId: session.id,
      signal,
    });
    const summaryTokens = measure(text);
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
  };

  return {
    async compactIfNeeded(agent, fullSystemPrompt, sessionPrefix, signal) {
      const pressure = pressureOf(agent, fullSystemPrompt, sessionPrefix);
      if (pressure.total <= ratio * windowOf(agent)) return;
      await run(agent, fullSystemPrompt, sessionPrefix, signal, "auto");
    },
    async compactNow(agent, fullSystemPrompt, sessionPrefix, signal) {
      pressureOf(agent, fullSystemPrompt, sessionPrefix);
      await run(agent, fullSystemPrompt, sessionPrefix, signal, "manual");
    },
    lastPressure: (agent) => seen.get(agent)?.pressure,
  };
}
