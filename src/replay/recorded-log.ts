// The log as a replay reads it (a pure fold): per turn, what started it (prompts with the product
// of `agent/prompt-submit`, steers, injects, a manual compaction, decisions and answers), what
// arrived at each step's boundary, which steps sent a request and what the model answered; per
// call, its logged result; per pause, its decision or answer and whether it came live; the
// compaction summaries in order. The driver feeds these to the current code; everything else
// (system, tools, prefix, config, post-tool context when tools run live, repair prompts,
// compaction decisions) the current code recomputes.
import type { JsonObject, JsonValue } from "../json/index.js";
import type { AssistantContent, ToolResultPart, Usage, UserContent } from "../messages/index.js";
import { compactSummaryOf, type AnySessionEvent, type SessionEvent, type TurnEndReason } from "../session/index.js";

/** A prompt as the log holds it: what `agent/prompt-submit` made of it. */
export type RecordedPrompt =
  | {
      readonly action: "allow";
      readonly content: readonly UserContent[];
      readonly additionalContext?: readonly UserContent[];
    }
  | { readonly action: "block"; readonly content: readonly UserContent[]; readonly reason: string };

/** A decision or an answer that opened a turn (trigger `approval`). */
export type RecordedAnswer =
  | {
      readonly kind: "approval";
      readonly callId: string;
      readonly approve: boolean;
      readonly by?: string;
      readonly note?: string;
      readonly arguments?: string;
    }
  | { readonly kind: "input"; readonly id: string; readonly value: JsonValue; readonly by?: string };

/** What the model answered a step's request: a message, a provider failure, or nothing (cut short). */
export type RecordedOutput =
  | {
      readonly kind: "message";
      readonly content: readonly AssistantContent[];
      readonly usage?: Usage;
      readonly stopReason?: string;
    }
  | { readonly kind: "failure"; readonly code?: string; readonly message: string }
  | { readonly kind: "none" };

export interface Boundary {
  readonly injects: (readonly UserContent[])[];
  readonly steers: (readonly UserContent[])[];
}

export interface RecordedTurn {
  readonly turn: number;
  readonly trigger: string;
  readonly startSeq: number;
  readonly reason: TurnEndReason | undefined;
  /** The turn logs a `resume` header snapshot: a new loop instance (resume, fork, restart) ran it. */
  readonly newInstance: boolean;
  /** A manual compaction (`agent.compact()`) was claimed with it. */
  readonly compact: boolean;
  readonly injects: readonly (readonly UserContent[])[];
  readonly steers: readonly (readonly UserContent[])[];
  readonly prompts: readonly RecordedPrompt[];
  readonly answers: readonly RecordedAnswer[];
  /** Injects and steers logged at a step's boundary (after the claim), by step. */
  readonly boundaries: ReadonlyMap<number, Boundary>;
  /** Injects logged at the turn's end (they arrived after its last boundary). */
  readonly lateInjects: readonly (readonly UserContent[])[];
  /** The model's answer per step that sent a request. */
  readonly outputs: ReadonlyMap<number, RecordedOutput>;
}

export interface RecordedResult {
  readonly content: readonly ToolResultPart[];
  readonly isError: boolean;
  readonly meta?: JsonObject;
  /** Post-tool context assigned to this call (its batch's contexts, in call order). */
  readonly additionalContext?: readonly UserContent[];
}

export interface RecordedPause {
  /** The turn that logged the request. */
  readonly turn: number;
  /** The answer, and the turn that logged it. */
  readonly answer?: { readonly turn: number; readonly value: RecordedAnswer };
}

export interface RecordedLog {
  readonly turns: readonly RecordedTurn[];
  /** Every call's logged result (appended results only: compaction's pruned copies are recomputed). */
  readonly results: ReadonlyMap<string, RecordedResult>;
  /** Calls that were logged as `tool/call` (they ran, or were denied). */
  readonly called: ReadonlySet<string>;
  readonly approvals: ReadonlyMap<string, RecordedPause>;
  readonly inputs: ReadonlyMap<string, RecordedPause>;
  /** Compaction summaries in log order: the text that replaced history, and the call's usage. */
  readonly summaries: readonly { readonly text: string; readonly usage?: Usage }[];
}

/** One number for a (turn, step) pair: a map key cheaper than a string (steps stay far below 2^20). */
export const stepKey = (turn: number, step: number): number => turn * 1_048_576 + step;

const ADMIT_SOURCES: ReadonlySet<string> = new Set(["inject", "prompt-submit"]);

interface TurnDraft {
  turn: number;
  trigger: string;
  startSeq: number;
  reason: TurnEndReason | undefined;
  newInstance: boolean;
  compact: boolean;
  /** `pre` (a manual compaction may run), `admit` (claim inputs), `steps` (anything later). */
  phase: "pre" | "admit" | "steps";
  /** Within the claim: injects, then steers, then prompts — what came later is a boundary's. */
  claimStage: 0 | 1 | 2;
  step: number;
  injects: (readonly UserContent[])[];
  steers: (readonly UserContent[])[];
  prompts: RecordedPrompt[];
  answers: RecordedAnswer[];
  boundaries: Map<number, Boundary>;
  lateInjects: (readonly UserContent[])[];
  outputs: Map<number, RecordedOutput>;
}

/** Indexes `events` (a valid log, e.g. a read-only load) for a replay. */
export function recordedLog(events: readonly SessionEvent[]): RecordedLog {
  const turns: RecordedTurn[] = [];
  const results = new Map<string, RecordedResult>();
  const called = new Set<string>();
  const approvals = new Map<string, RecordedPause>();
  const inputs = new Map<string, RecordedPause>();
  const summaries: { text: string; usage?: Usage }[] = [];
  let draft: TurnDraft | undefined;
  let pendingSummaryUsage: Usage | undefined;
  /** The results of the tool batch in progress (a step's, or an approval turn's held calls'), for post-tool context. */
  let batch: string[] = [];
  let batchContexts = 0;

  const boundary = (d: TurnDraft): Boundary => {
    const step = d.step + 1;
    const known = d.boundaries.get(step);
    if (known !== undefined) return known;
    const fresh: Boundary = { injects: [], steers: [] };
    d.boundaries.set(step, fresh);
    return fresh;
  };
  const leaveClaim = (d: TurnDraft): void => {
    if (d.phase !== "steps") d.phase = "steps";
  };

  for (const event of events as readonly AnySessionEvent[]) {
    if (event.type === "turn/start") {
      draft = {
        turn: event.data.turn,
        trigger: event.data.trigger,
        startSeq: event.seq,
        reason: undefined,
        newInstance: false,
        compact: false,
        phase: "pre",
        claimStage: 0,
        step: 0,
        injects: [],
        steers: [],
        prompts: [],
        answers: [],
        boundaries: new Map(),
        lateInjects: [],
        outputs: new Map(),
      };
      turns.push(draft as RecordedTurn);
      batch = [];
      batchContexts = 0;
      continue;
    }
    const d = draft;
    if (d === undefined) continue;
    switch (event.type) {
      case "compact/start":
        if (event.data.trigger === "manual" && d.phase === "pre") d.compact = true;
        else leaveClaim(d);
        break;
      case "compact/summary":
        pendingSummaryUsage = compactSummaryOf(event).usage;
        break;
      case "compact/end":
        break;
      case "context/message": {
        const { source, content } = event.data;
        if (source === "inject") {
          if (d.phase !== "steps" && d.claimStage === 0 && d.trigger !== "approval") {
            d.phase = "admit";
            d.injects.push(content);
          } else boundary(d).injects.push(content);
        } else if (source === "prompt-submit" && d.phase === "admit") {
          const last = d.prompts.at(-1);
          if (last?.action === "allow") d.prompts[d.prompts.length - 1] = { ...last, additionalContext: content };
        } else if (source === "tools/post-execute") {
          const callId = batch[batchContexts++];
          const result = callId === undefined ? undefined : results.get(callId);
          if (callId !== undefined && result !== undefined)
            results.set(callId, { ...result, additionalContext: content });
          leaveClaim(d);
        } else if (!ADMIT_SOURCES.has(source)) leaveClaim(d);
        break;
      }
      case "steering/message":
        if (d.phase !== "steps" && d.claimStage <= 1 && d.trigger !== "approval") {
          d.phase = "admit";
          d.claimStage = 1;
          d.steers.push(event.data.content);
        } else boundary(d).steers.push(event.data.content);
        break;
      case "user/message":
        if (event.data.source === "compaction") {
          const text = event.data.content.map((p) => (p.type === "text" ? p.text : "")).join("");
          summaries.push(pendingSummaryUsage === undefined ? { text } : { text, usage: pendingSummaryUsage });
          pendingSummaryUsage = undefined;
        } else if (d.phase !== "steps") {
          d.phase = "admit";
          d.claimStage = 2;
          d.prompts.push({ action: "allow", content: event.data.content });
        }
        break;
      case "prompt/blocked":
        d.phase = "admit";
        d.claimStage = 2;
        d.prompts.push({ action: "block", content: event.data.content, reason: event.data.reason });
        break;
      case "approval/request":
        approvals.set(event.data.callId, { turn: d.turn });
        leaveClaim(d);
        break;
      case "approval/decision": {
        const { callId, approve, by, note, arguments: args } = event.data;
        const value: RecordedAnswer = {
          kind: "approval",
          callId,
          approve,
          ...(by === undefined ? {} : { by }),
          ...(note === undefined ? {} : { note }),
          ...(args === undefined ? {} : { arguments: args }),
        };
        answered(approvals, callId, value, d);
        break;
      }
      case "input/request":
        inputs.set(event.data.id, { turn: d.turn });
        leaveClaim(d);
        break;
      case "input/response": {
        const { id, value: answer, by } = event.data;
        answered(inputs, id, { kind: "input", id, value: answer, ...(by === undefined ? {} : { by }) }, d);
        break;
      }
      case "step/start":
        leaveClaim(d);
        d.step = event.data.step;
        batch = [];
        batchContexts = 0;
        break;
      case "request/header":
        if (event.data.reason === "resume") d.newInstance = true;
        break;
      case "assistant/message": {
        const { content, usage, stopReason, step } = event.data;
        d.outputs.set(step, {
          kind: "message",
          content,
          ...(usage === undefined ? {} : { usage }),
          ...(stopReason === undefined ? {} : { stopReason }),
        });
        break;
      }
      case "tool/call":
        called.add(event.data.callId);
        leaveClaim(d); // held calls (an approval turn) run right after the claim, a batch of their own
        break;
      case "tool/result":
        if (event.surfaceOp !== "append") break; // a compaction's pruned copy
        results.set(event.data.callId, {
          content: event.data.content,
          isError: event.data.isError,
          ...(event.data.meta === undefined ? {} : { meta: event.data.meta }),
        });
        batch.push(event.data.callId);
        break;
      case "step/end":
        if (event.data.dispatched !== false && !d.outputs.has(event.data.step))
          d.outputs.set(event.data.step, { kind: "none" });
        break;
      case "turn/end":
        d.reason = event.data.reason;
        lateInjectsOf(d);
        closeFailure(d);
        draft = undefined;
        break;
      default:
        break;
    }
  }
  return { turns, results, called, approvals, inputs, summaries };
}

/** A decision or answer: it settles its pause; logged at the start of an `approval` turn, it is that turn's input. */
function answered(pauses: Map<string, RecordedPause>, key: string, value: RecordedAnswer, d: TurnDraft): void {
  const pause = pauses.get(key);
  if (pause !== undefined) pauses.set(key, { ...pause, answer: { turn: d.turn, value } });
  if (d.trigger === "approval" && d.phase !== "steps") {
    d.phase = "admit";
    d.answers.push(value);
  }
}

/**
 * Injects logged after the last step ended (or after the claim, with no step): they arrived once
 * no boundary was left, and were logged before `turn/end`.
 */
function lateInjectsOf(d: TurnDraft): void {
  const after = d.boundaries.get(d.step + 1);
  if (after === undefined) return;
  d.lateInjects.push(...after.injects);
  d.boundaries.delete(d.step + 1);
}

/** A step whose request got no answer and whose turn ended `error` at it: the provider failed. */
function closeFailure(d: TurnDraft): void {
  const reason = d.reason;
  if (reason?.kind !== "error") return;
  const output = d.outputs.get(reason.step);
  if (output?.kind === "none")
    d.outputs.set(reason.step, {
      kind: "failure",
      message: reason.message,
      ...(reason.code === undefined ? {} : { code: reason.code }),
    });
}
