// One cancellation trial's plan, drawn from a seeded RNG: where the cancel or dispose lands —
// before the turn starts, in a prompt-submit listener, while the session prefix composes (on a
// new or a resumed instance), in a pre-step listener, in an `agent/request` listener,
// mid-stream, while a retry backs off, between two tool calls, inside a tool, after a step, or
// as `turn/end` is logged (too late: the turn completes) — what lands (cancel, dispose, both;
// with or without an inject in the same frame), and the shape of the turn it lands in. Also the
// conversation's vocabulary: task prompts, where a request stands, the full session prefix.
import { mulberry32 } from "../src/emulator/index.js";
import type { Message } from "../src/messages/index.js";

export const CANCEL_POINTS = [
  "queued",
  "prompt-submit",
  "prefix",
  "pre-step",
  "request",
  "mid-stream",
  "retry-wait",
  "between-tools",
  "tool-exec",
  "post-step",
  "turn-end",
] as const;
export type CancelPoint = (typeof CANCEL_POINTS)[number];
/** `cancel+dispose`: a cancel and, in the same frame, a dispose (dispose must win). */
export const CANCEL_ACTIONS = ["cancel", "dispose", "cancel+dispose"] as const;
export type CancelAction = (typeof CANCEL_ACTIONS)[number];
/** `abort-aware`: the held listener resumes on the abort; `release`: it ignores the signal until the run releases it. */
export type HoldStyle = "abort-aware" | "release";

export interface CancelPlan {
  readonly seed: number;
  readonly point: CancelPoint;
  readonly action: CancelAction;
  readonly style: HoldStyle;
  /** Completed turns before the one the cancel lands in. */
  readonly warmTurns: number;
  /** The warm-up turns ran on an earlier instance: the cancel lands in a resumed instance's first turn. */
  readonly resumed: boolean;
  readonly prefixOnResume: "recompose" | "reuse";
  /** Persist to the JSONL store (always after a dispose, which the next instance resumes from). */
  readonly store: boolean;
  /** The cancelled turn's tool rounds (calls per round); its last step answers in text. */
  readonly rounds: readonly number[];
  /** The step the point is in (1-based). */
  readonly step: number;
  /** tool-exec: the held call; between-tools: the call after whose result the cancel lands; prefix: the held contributor (mod 2). */
  readonly call: number;
  /** mid-stream: chunks delivered before the pause. */
  readonly chunk: number;
  /** An `inject()` arrives in the same frame as the cancel (it must be logged iff it resolves). */
  readonly inject: boolean;
}

export const CANCEL_REASON = "reliability: user pressed escape";
export const INJECTED = "<system-reminder>injected while the turn was being stopped</system-reminder>";

export function planTrial(seed: number): CancelPlan {
  const random = mulberry32(seed);
  const int = (n: number): number => Math.floor(random() * n);
  const point = CANCEL_POINTS[int(CANCEL_POINTS.length)]!;
  const action = CANCEL_ACTIONS[int(CANCEL_ACTIONS.length)]!;
  // A prompt-submit listener gets no signal: it can only wait to be released.
  const style: HoldStyle = point === "prompt-submit" || random() < 0.5 ? "release" : "abort-aware";
  const rounds = Array.from({ length: 1 + int(3) }, () => 1 + int(3));
  const toolStep = 1 + int(rounds.length);
  if (point === "between-tools") rounds[toolStep - 1] = Math.max(2, rounds[toolStep - 1]!);
  const step = point === "tool-exec" || point === "between-tools" ? toolStep : 1 + int(rounds.length + 1);
  const calls = rounds[toolStep - 1]!;
  const call = point === "between-tools" ? int(calls - 1) : int(calls);
  const warmTurns = int(3);
  // A cached prefix is composed once per instance: to land in a composition after warm-ups, they ran on an earlier instance.
  const resumed = warmTurns > 0 && (point === "prefix" || random() < 0.25);
  const prefixOnResume = random() < 0.5 ? "recompose" : "reuse";
  const store = action !== "cancel" || resumed || random() < 0.5;
  return {
    seed,
    point,
    action,
    style,
    warmTurns,
    resumed,
    prefixOnResume,
    store,
    rounds,
    step,
    call,
    chunk: 1 + int(3),
    inject: random() < 0.3,
  };
}

export const user = (text: string): Message => ({ role: "user", content: [{ type: "text", text }] });
/** The complete session prefix: what every request of every instance must start with. */
export const FULL_PREFIX: readonly Message[] = [
  user("<system-reminder>Skills: probe before answering.</system-reminder>"),
  user("<system-reminder>Workspace: a small repository.</system-reminder>"),
];
/** What the held contributor returns once the cancel has landed: it must never be cached, logged or sent. */
export const DEGRADED = "DEGRADED";

export const prompt = (turn: number, rounds: readonly number[]): string =>
  `task ${turn}: rounds ${rounds.join(",") || "none"}`;
const TASK = /^task (\d+): rounds ([\d,]+|none)$/;
/** The text answer of a task's final step carries this marker (to prove a paused partial never lands). */
export const answerMark = (turn: number, step: number): string => `⟨t${turn}s${step}⟩`;

/** Where a request stands: the task it serves and the step within it (assistant messages since the task, + 1). */
export function positionOf(messages: readonly Message[]): { turn: number; rounds: number[]; step: number } | undefined {
  const taskOf = (m: Message): RegExpExecArray | null =>
    m.role === "user" && m.content[0]?.type === "text" ? TASK.exec(m.content[0].text) : null;
  const at = messages.findLastIndex((m) => taskOf(m) !== null);
  if (at === -1) return undefined;
  const task = taskOf(messages[at]!)!;
  const rounds = task[2] === "none" ? [] : task[2]!.split(",").map(Number);
  return {
    turn: Number(task[1]),
    rounds,
    step: messages.slice(at + 1).filter((m) => m.role === "assistant").length + 1,
  };
}

/** The cancelled turn's number. */
export const cancelTurn = (plan: CancelPlan): number => plan.warmTurns + 1;
