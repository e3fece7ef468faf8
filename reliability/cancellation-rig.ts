// One cancellation trial's rig: an in-process ScriptedProvider (a deterministic model of the
// conversation, wrapped to pause between chunks), a tool, two session-prefix contributors and the
// listeners that hold at the planned point until the run acts. Nothing sleeps: every pause is a
// deferred the run resolves (or the turn's abort signal, for abort-aware listeners).
import { z } from "zod";
import { type Provider, type ProviderRequest, ScriptedProvider, type ScriptedReply } from "../src/llm/index.js";
import type { Agent, AgentOptions, AgentPlugin } from "../src/loop/index.js";
import { defineTool } from "../src/tools/index.js";
import { fixedClock } from "../test/support/builders.js";
import { deferred } from "../test/support/deferred.js";
import {
  answerMark,
  type CancelPlan,
  cancelTurn,
  DEGRADED,
  FULL_PREFIX,
  type HoldStyle,
  positionOf,
  user,
} from "./cancellation-plan.js";

/** The model: a tool round while the task has rounds left, then a marked answer. `fail` answers a retryable error instead. */
function reply(request: ProviderRequest, fail: (turn: number, step: number) => boolean): ScriptedReply {
  const at = positionOf(request.messages);
  if (at === undefined) return { text: "No task." };
  if (fail(at.turn, at.step))
    return { error: { code: "overloaded", message: "overloaded (scripted)", retryable: true } };
  if (at.step <= at.rounds.length) {
    return {
      toolCalls: Array.from({ length: at.rounds[at.step - 1]! }, (_, c) => ({
        name: "probe",
        arguments: { text: `t${at.turn}s${at.step}c${c}` },
      })),
    };
  }
  return { text: `Task ${at.turn} is done ${answerMark(at.turn, at.step)}: every probe agreed with the others.` };
}

/** A point the run waits for: the held listener calls `wait`, the run acts, then `release`s. */
export interface Hold {
  readonly reached: Promise<void>;
  /** Without a signal (or in `release` style) the listener resumes only when released. */
  wait(signal?: AbortSignal): Promise<void>;
  release(): void;
}

function holdFor(style: HoldStyle): Hold {
  const reached = deferred();
  const opened = deferred();
  let used = false;
  return {
    reached: reached.promise,
    wait(signal) {
      used = true;
      reached.resolve();
      if (style === "release" || signal === undefined) return opened.promise;
      const aborted = new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
      return Promise.race([opened.promise, signal.aborted ? Promise.resolve() : aborted]);
    },
    release: () => {
      if (used) opened.resolve();
    },
  };
}

export interface Rig {
  readonly hold: Hold;
  /** The ScriptedProvider every instance of the trial talks to (it records every request). */
  readonly scripted: ScriptedProvider;
  /** Options for the first instance and any resumed one (no store: the run adds it). */
  readonly options: AgentOptions;
  /** Registers the synchronous points (a `session/event` listener that acts at once) on `agent`. */
  attach(agent: Agent, act: () => void): void;
  /** How many times the prefix was composed (every instance that reached a step, plus the discarded one). */
  readonly compositions: () => number;
}

export function buildRig(plan: CancelPlan): Rig {
  const hold = holdFor(plan.style);
  const turn = cancelTurn(plan);
  const here = (t: number, s: number): boolean => t === turn && s === plan.step;
  const heldCall = `call_${turn}_${plan.step}_${plan.call}`;
  let failed = false;
  const fail = (t: number, s: number): boolean => {
    if (plan.point !== "retry-wait" || !here(t, s) || failed) return false;
    failed = true;
    return true;
  };
  const scripted = new ScriptedProvider([], { fallback: (request) => reply(request, fail) });

  // mid-stream: the provider pauses before its `chunk`-th chunk of the chosen step's reply.
  const provider: Provider = {
    id: scripted.id,
    async *stream(request) {
      const at = positionOf(request.messages);
      const pause = plan.point === "mid-stream" && at !== undefined && here(at.turn, at.step);
      let delivered = 0;
      for await (const chunk of scripted.stream(request)) {
        if (pause && delivered++ === plan.chunk) {
          await hold.wait(request.signal);
          if (request.signal.aborted) {
            yield { type: "finish", reason: "aborted" };
            return;
          }
        }
        yield chunk;
      }
    },
  };

  let compositions = 0;
  let stepSignal = new AbortController().signal;
  const prefix: AgentPlugin = (host) => {
    // Two contributors (prepend pattern); the planned one holds the instance's composition.
    let holding = false;
    for (const index of [0, 1] as const) {
      host.on("agent/session-prefix", async ({ signal }, next) => {
        // The held composition is the first of the instance the cancel lands in.
        if (index === 0) holding = ++compositions === (plan.resumed ? 2 : 1) && plan.point === "prefix";
        if (holding && index === plan.call % 2) {
          await hold.wait(signal);
          return [
            user(`${DEGRADED} contribution ${index} (composed while the turn was being stopped)`),
            ...(await next()),
          ];
        }
        return [FULL_PREFIX[index]!, ...(await next())];
      });
    }
    host.on("agent/prompt-submit", async ({ prompt: input }, next) => {
      const first = input.content[0];
      if (plan.point === "prompt-submit" && first?.type === "text" && first.text.startsWith(`task ${turn}:`))
        await hold.wait();
      return next();
    });
    host.on("agent/pre-step", async ({ turn: t, step: s, signal }) => {
      stepSignal = signal;
      if (plan.point === "pre-step" && here(t, s)) await hold.wait(signal);
    });
    host.on("agent/request", async ({ agent }, next) => {
      const open = agent.session;
      if (plan.point === "request" && here(open.openTurn ?? 0, open.openStep ?? 0)) await hold.wait(stepSignal);
      return next();
    });
    return undefined;
  };

  const probe = defineTool({
    name: "probe",
    description: "Probes one thing and reports it.",
    input: z.object({ text: z.string() }),
    execute: async ({ text }, context) => {
      if (plan.point === "tool-exec" && context.callId === heldCall) await hold.wait(context.signal);
      return `probe ${text}: ok`;
    },
  });

  return {
    hold,
    scripted,
    options: {
      provider,
      model: "scripted:reliability",
      system: "You are a careful assistant.",
      tools: [probe],
      plugins: [prefix],
      invariants: true,
      clock: fixedClock(),
      prefixOnResume: plan.prefixOnResume,
      // retry-wait: the backoff after the scripted failure is the held point; no other attempt fails.
      retry: {
        random: () => 0.5,
        sleep: (_ms, signal) => (plan.point === "retry-wait" ? hold.wait(signal) : Promise.resolve()),
      },
    },
    compositions: () => compositions,
    attach(agent, act) {
      agent.hooks.on("session/event", ({ event }) => {
        const d = event.data as { turn?: number; step?: number; callId?: string };
        if (plan.point === "between-tools" && event.type === "tool/result" && d.callId === heldCall) act();
        if (
          plan.point === "post-step" &&
          event.type === "step/end" &&
          d.turn !== undefined &&
          d.step !== undefined &&
          here(d.turn, d.step)
        )
          act();
        if (plan.point === "turn-end" && event.type === "turn/end" && d.turn === turn) act();
      });
    },
  };
}
