// One provider-faults session: a seeded plan of turns with tool rounds, an emulator on 127.0.0.1
// injecting faults on a seeded share of requests, and an agent driving it through a real adapter
// (the official Anthropic or OpenAI SDK) with zero-delay retries and the invariant on. Returns
// everything the checks need: the log, the requests the loop handed the adapter (every attempt),
// and what the emulator recorded on the wire. Owns the plan, the emulator's model and the run.
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { z } from "zod";
import {
  countTokens,
  type EmulatorModelFunction,
  type EmulatorServer,
  FAULT_KINDS,
  type FaultKind,
  mulberry32,
  type RecordedRequest,
  startEmulator,
} from "../src/emulator/index.js";
import { AnthropicProvider, OpenAICompatibleProvider, type Provider, type ProviderRequest } from "../src/llm/index.js";
import { type AgentPlugin, createAgent, type TurnOutcome } from "../src/loop/index.js";
import type { Message } from "../src/messages/index.js";
import type { SessionEvent } from "../src/session/index.js";
import { defineTool } from "../src/tools/index.js";
import { fixedClock } from "../test/support/builders.js";
import { expectedOutcome, type Flavor } from "./provider-faults-outcomes.js";

export type { Flavor };
export const FLAVORS: readonly Flavor[] = ["anthropic", "openai", "deepseek"];
const MODELS: { readonly [F in Flavor]: string } = {
  anthropic: "claude-sonnet-4-5",
  openai: "gpt-5-mini",
  deepseek: "deepseek-chat",
};

/** Faults on this share of requests (the 20%). */
export const FAULT_RATE = 0.2;
/**
 * A stall fault ends when the adapter's stall timer fires: the one real wait of the suite, kept
 * short. The tokenizer is warmed up front so its first use cannot pass for a silent provider.
 */
export const STALL_TIMEOUT_MS = 250;
/** Model steps each session plans (a turn's steps = its tool rounds + the final answer). */
export const STEPS_PER_SESSION = 12;

export interface TurnPlan {
  /** Tool calls per tool round; the turn's last step answers in text. */
  readonly rounds: readonly number[];
  readonly reasoning: boolean;
}

export interface SessionPlan {
  readonly flavor: Flavor;
  readonly seed: number;
  /** The loop's retry budget; the seeded faults never fault more requests in a row than one less. */
  readonly maxAttempts: number;
  /**
   * Faults queued for the first attempts of the session's `atStep`-th step, on top of the seeded
   * rate (every 9 sessions see every kind): `count` 1 — a transient fault, which the retries
   * outlast — or, in an outage session, `maxAttempts`: every attempt of that step fails, and that
   * turn (only) ends with the kind's typed error.
   */
  readonly forced: { readonly kind: FaultKind; readonly atStep: number; readonly count: number };
  /** Whether the forced fault outlasts the retry budget (its kind fails the attempt, on this flavor). */
  readonly outage: boolean;
  readonly turns: readonly TurnPlan[];
}

/**
 * One session in three is an outage, spread so that every 27 sessions give each kind one (every
 * 9 rotate through the kinds; the outage slot moves by one each round).
 */
const isOutageTrial = (trial: number): boolean => (trial + Math.floor(trial / FAULT_KINDS.length)) % 3 === 2;

export interface SessionRun {
  readonly plan: SessionPlan;
  readonly sessionId: string;
  readonly events: readonly SessionEvent[];
  readonly history: readonly Message[];
  readonly outcomes: readonly TurnOutcome[];
  /** Every request the loop handed the adapter, one per attempt, in order. */
  readonly sent: readonly ProviderRequest[];
  /** Every request the emulator received, in order. */
  readonly recorded: readonly RecordedRequest[];
}

/** A marker naming the wire request whose model reply carries it (⟨r12⟩ = recorded request 12). */
export const marker = (recordedIndex: number): string => `⟨r${recordedIndex}⟩`;
export const MARKER = /⟨r(\d+)⟩/g;

export function planSession(trial: number, seed: number): SessionPlan {
  const random = mulberry32(seed);
  const int = (n: number): number => Math.floor(random() * n);
  const turns: TurnPlan[] = [];
  for (let planned = 0; planned < STEPS_PER_SESSION; ) {
    const rounds = Array.from({ length: Math.min(int(4), STEPS_PER_SESSION - planned - 1) }, () => 1 + int(3));
    turns.push({ rounds, reasoning: random() < 0.5 });
    planned += rounds.length + 1;
  }
  const kind = FAULT_KINDS[trial % FAULT_KINDS.length]!;
  const atStep = 1 + int(STEPS_PER_SESSION - 1);
  const flavor = FLAVORS[trial % FLAVORS.length]!;
  const maxAttempts = [2, 3, 5][int(3)]!;
  const outage = isOutageTrial(trial) && expectedOutcome(kind, flavor) !== "ok";
  const forced = { kind, atStep, count: outage ? maxAttempts : 1 };
  return { flavor, seed, maxAttempts, forced, outage, turns };
}

const prompt = (turn: number, plan: TurnPlan): string =>
  `task ${turn}: rounds ${plan.rounds.join(",") || "none"}${plan.reasoning ? " thinking" : ""}`;
const TASK = /^task (\d+): rounds ([\d,]+|none)( thinking)?$/;

/**
 * The emulator's model: a deterministic function of the conversation. It finds the turn's task
 * (the last user text starting "task"), counts the assistant messages since, and either calls
 * `read` for the next round or answers — every reply marked with the wire request it answers.
 */
function plannedModel(current: () => number): EmulatorModelFunction {
  return (request) => {
    const mark = marker(current());
    const taskOf = (m: Message): RegExpExecArray | null =>
      m.role === "user"
        ? m.content.reduce<RegExpExecArray | null>(
            (found, b) => found ?? (b.type === "text" ? TASK.exec(b.text) : null),
            null,
          )
        : null;
    const at = request.messages.findLastIndex((m) => taskOf(m) !== null);
    const task = at === -1 ? null : taskOf(request.messages[at]!);
    if (task === null) return { text: `No task found ${mark}.` };
    const turn = Number(task[1]);
    const rounds = task[2] === "none" ? [] : task[2]!.split(",").map(Number);
    const done = request.messages.slice(at + 1).filter((m) => m.role === "assistant").length;
    const reasoning =
      task[3] === undefined ? {} : { reasoning: `Step ${done + 1} of task ${turn} needs care ${mark}.` };
    if (done < rounds.length) {
      return {
        ...reasoning,
        toolCalls: Array.from({ length: rounds[done]! }, (_, c) => ({
          name: "read",
          arguments: { path: `t${turn}-s${done + 1}-c${c}-${mark}.txt` },
        })),
      };
    }
    return {
      ...reasoning,
      text: `Task ${turn} is done ${mark}: every file was read, the numbers agree, and nothing else needs to change in this repository today.`,
    };
  };
}

const readTool = defineTool({
  name: "read",
  description: "Reads a file and returns its contents.",
  input: z.object({ path: z.string() }),
  execute: ({ path }) => `contents of ${path}: forty-two lines`,
});

const prefix: AgentPlugin = (host) => {
  host.on("agent/session-prefix", async (_payload, next) => [
    {
      role: "user",
      content: [{ type: "text", text: "<system-reminder>Skills: read files before answering.</system-reminder>" }],
    },
    ...(await next()),
  ]);
  return undefined;
};

/**
 * The real adapter for `flavor`, over a client built as the adapter builds its own (SDK retries
 * off: the loop retries and logs) but with the SDK's console logging off — it prints every
 * malformed SSE event it rejects, which would bury the runner's table.
 */
function adapterFor(flavor: Flavor, server: EmulatorServer): Provider {
  const apiKey = "reliability-key";
  if (flavor === "anthropic") {
    const client = new Anthropic({ apiKey, baseURL: server.anthropicBaseURL, maxRetries: 0, logLevel: "off" });
    return new AnthropicProvider({ client, stallTimeoutMs: STALL_TIMEOUT_MS });
  }
  const client = new OpenAI({ apiKey, baseURL: server.openaiBaseURL, maxRetries: 0, logLevel: "off" });
  return new OpenAICompatibleProvider({ flavor, client, stallTimeoutMs: STALL_TIMEOUT_MS });
}

let warmed = false;

/** Runs `plan` against a fresh emulator and returns what happened. */
export async function runSession(plan: SessionPlan): Promise<SessionRun> {
  if (!warmed) countTokens("warm the tokenizer up before any stall timer runs");
  warmed = true;
  let server: EmulatorServer | undefined;
  server = await startEmulator({
    model: plannedModel(() => server!.requests.length - 1),
    // Transient: a run of faults never spends the whole retry budget (the forced one counts towards it).
    faults: { rate: FAULT_RATE, seed: plan.seed, maxConsecutive: plan.maxAttempts - 1 },
    ...(plan.flavor === "deepseek" ? { style: "deepseek" as const } : {}),
  });
  try {
    const adapter = adapterFor(plan.flavor, server);
    const sent: ProviderRequest[] = [];
    const recording: Provider = {
      id: adapter.id,
      stream: (request) => {
        sent.push(request);
        return adapter.stream(request);
      },
    };
    const agent = createAgent({
      provider: recording,
      model: MODELS[plan.flavor],
      system: "You are a careful assistant working in a small repository. Answer briefly.",
      tools: [readTool],
      plugins: [prefix],
      maxTokens: 1024,
      retry: { sleep: async () => undefined, random: () => 0.5, maxAttempts: plan.maxAttempts },
      invariants: true,
      clock: fixedClock(),
    });
    let steps = 0;
    agent.hooks.on("session/event", ({ event }) => {
      if (event.type === "step/start" && ++steps === plan.forced.atStep)
        server!.faults.next(...Array.from({ length: plan.forced.count }, () => plan.forced.kind));
    });
    const outcomes: TurnOutcome[] = [];
    for (const [i, turn] of plan.turns.entries()) outcomes.push(await agent.send(prompt(i + 1, turn)));
    await agent.dispose();
    return {
      plan,
      sessionId: agent.session.id,
      events: agent.session.events,
      history: agent.session.deriveMessages(),
      outcomes,
      sent,
      recorded: [...server.requests],
    };
  } finally {
    await server.close();
  }
}
