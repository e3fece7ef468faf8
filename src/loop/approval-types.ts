// The vocabulary of pauses for a person at the loop (ARCHITECTURE.md §10, "Pauses are events"):
// what a decider answers, what an answerer replies to a question, the approval and question
// hooks, and the typed errors of `agent.decide` and `agent.respond`. The events
// themselves (`approval/request`, `approval/decision`) are the session's; this is how an agent
// asks for them and takes them.
import { KeelsonError } from "../errors/index.js";
import type { WaterfallHook } from "../hooks/index.js";
import type { JsonObject, JsonValue } from "../json/index.js";
import type { PendingApproval, PendingInput } from "../session/index.js";
import type { Agent, StreamOptions, TurnOutcome, TurnStream } from "./types.js";

/**
 * A person's answer to an approval request. `arguments` (an object, or its JSON text) replaces
 * the model's arguments — only with `approve: true`, and only for a tool with
 * `allowEditedArguments`. `by` and `note` are logged as given.
 */
export interface ApprovalDecision {
  readonly approve: boolean;
  readonly by?: string;
  readonly note?: string;
  readonly arguments?: JsonObject | string;
  /**
   * The session whose call it is, when it is a subagent's (a `path`'s last id, from
   * `pendingApprovals` of a store or a forwarded request): the decision is logged there, and once
   * that subagent waits for nothing more this agent's turn continues. Default: this session.
   */
  readonly session?: string;
}

/**
 * A live decider: answers an approval request while the turn runs, or returns `undefined` (no
 * answer — the turn ends `awaiting-approval` and a later `agent.decide` continues it).
 */
export type Approver = (request: PendingApproval, signal: AbortSignal) => Promise<ApprovalAnswer>;

/** What a live decider gives back: a decision, or `undefined` for no answer. */
export type ApprovalAnswer = ApprovalDecision | undefined;

/** `approval/ask`: a call needs approval and the turn is running. */
export interface ApprovalAskPayload {
  readonly agent: Agent;
  /** The logged `approval/request` (frozen). */
  readonly request: PendingApproval;
  /** The turn's signal: a cancel or dispose aborts it; a decider should give up then. */
  readonly signal: AbortSignal;
}

/** `approval/decide`: a decision about to be logged. */
export interface ApprovalDecidePayload {
  readonly agent: Agent;
  readonly request: PendingApproval;
  /** The decision as it would be logged (arguments as JSON text). */
  readonly decision: {
    readonly approve: boolean;
    readonly by?: string;
    readonly note?: string;
    readonly arguments?: string;
  };
  /** True for an answer from a live decider (`approval/ask`), false for `agent.decide`. */
  readonly live: boolean;
}

/** What an `approval/decide` listener answers. */
export type ApprovalVerdict = { readonly action: "accept" } | { readonly action: "refuse"; readonly reason: string };

/** A reply to a question (`input/request`): the value (JSON, checked against the request's schema) and who gave it. */
export interface InputAnswer {
  readonly value: JsonValue;
  readonly by?: string;
  /** The session whose question it is, when it is a subagent's (as `ApprovalDecision.session`). */
  readonly session?: string;
}

/** One decision of an answer batch (`agent.streamAnswers`): the call it decides, and how. */
export interface CallDecision extends ApprovalDecision {
  readonly callId: string;
}

/** One reply of an answer batch: the question's id (the asking call's id) and the answer. */
export interface QuestionReply extends InputAnswer {
  readonly id: string;
}

/**
 * Answers to a paused turn's pending approvals and questions, logged together in one
 * continuation turn (`agent.streamAnswers`). At least one of the two, no call or question twice.
 */
export interface AnswerBatch {
  readonly decisions?: readonly CallDecision[];
  readonly responses?: readonly QuestionReply[];
}

/** How `agent.streamAnswers` streams (a continuation turn takes the agent's default output, no other). */
export type AnswerStreamOptions = Omit<StreamOptions<never>, "output" | "repair">;

/** What a live answerer gives back: an answer, or `undefined` for no answer. */
export type InputReply = InputAnswer | undefined;

/** A live answerer: replies to a question while the turn runs, or `undefined` (the turn ends `awaiting-input`). */
export type Answerer = (request: PendingInput, signal: AbortSignal) => Promise<InputReply>;

/** `input/ask`: a tool asks a person a question and the turn is running. */
export interface InputAskPayload {
  readonly agent: Agent;
  /** The logged `input/request` (frozen). */
  readonly request: PendingInput;
  readonly signal: AbortSignal;
}

/** The approval and question hooks; part of `AgentHooks` (each takes one frozen payload object). */
export type ApprovalHooks = {
  /**
   * Asks a live answerer a tool's question, after its `input/request` is logged; returns the
   * answer, or `undefined` when nobody answers (the turn ends `awaiting-input`).
   *
   * Waterfall; the innermost default is the agent's `answerer` option, else `undefined`. An answer
   * that does not match the request's schema, or a throwing listener (reported on `agent/error`),
   * counts as no answer.
   */
  readonly "input/ask": WaterfallHook<InputAskPayload, InputReply>;
  /**
   * Asks a live decider about a call that needs approval, after its `approval/request` is logged;
   * returns a decision, or `undefined` when nobody answers (the turn ends `awaiting-approval`).
   *
   * Waterfall, registration order; the innermost default is the agent's `approver` option, else
   * `undefined`. The built-in tools' and MCP tools' permission policy answers here for the tools it
   * gates (deny mode: a denial naming `--allow`; ask mode: the person's y/n/always). May throw:
   * reported on `agent/error` and counted as no answer.
   */
  readonly "approval/ask": WaterfallHook<ApprovalAskPayload, ApprovalAnswer>;
  /**
   * Before any decision is logged (from `agent.decide` or a live decider): accept it, or refuse
   * the decider with a reason.
   *
   * Waterfall; default accept. A refusal of `agent.decide` rejects it with
   * `ApprovalError('refused')` and logs nothing; a refused live answer counts as no answer. May
   * throw: treated as a refusal naming the failure.
   */
  readonly "approval/decide": WaterfallHook<ApprovalDecidePayload, ApprovalVerdict>;
};

export type ApprovalErrorCode =
  /** No tool call of the session has this id. */
  | "unknown-call"
  /** The call needed no approval, or its approval is not pending (already answered some other way). */
  | "not-pending"
  /** A decision for this call is already logged (a second decider lost the race). */
  | "already-decided"
  /** The turn that asked was cancelled: its pending approvals were closed without a decision. */
  | "cancelled"
  /** An `approval/decide` listener refused the decider. */
  | "refused"
  /** The decision is malformed (not a boolean `approve`, a non-string `by`/`note`, arguments that are not a JSON object, arguments on a denial). */
  | "invalid-decision"
  /** The decision edits the arguments of a tool without `allowEditedArguments`. */
  | "edit-not-allowed"
  /** An approval of a subagent call whose child still waits for a person: decide the child's request (`session`). */
  | "awaits-subagent";

/** A decision the log cannot take; nothing was logged. */
export class ApprovalError extends KeelsonError<ApprovalErrorCode> {}

export type InputErrorCode =
  /** No question of the session has this id. */
  | "unknown-request"
  /** A response to it is already logged. */
  | "already-answered"
  /** Its turn was cancelled: the question was closed without an answer. */
  | "cancelled"
  /** The value does not match the request's schema (the message lists the problems). */
  | "invalid-value";

/** A response the log cannot take (`agent.respond`); nothing was logged. */
export class InputError extends KeelsonError<InputErrorCode> {}

/** What an agent does with its pauses for a person; part of `Agent`. */
/** Whether the agent can answer questions asked while a call runs (MCP elicitation). */
export interface AgentQuestions {
  /**
   * True when a question asked while a call runs (an MCP server's elicitation) can be answered:
   * the agent has a store (the turn pauses into it; any process answers later) or a live
   * answerer (the `answerer` option, an `input/ask` listener). MCP offers elicitation only then.
   */
  readonly answersQuestions: boolean;
}

export interface AgentPauses {
  /**
   * Decides a pending approval: logs `approval/decision` (in a turn of its own, after the app's
   * `approval/decide` listeners accepted it) and, once no approval of the paused step is pending,
   * continues the turn — approved calls run (with the edited `arguments`, for a tool that allows
   * them), denied ones give the model an error result with the note — and the model is called
   * again. Resolves with that turn's outcome (`awaiting-approval` while others are pending).
   * Rejects with `ApprovalError` (`unknown-call`, `not-pending`, `already-decided`, `cancelled`,
   * `refused`, `invalid-decision`, `edit-not-allowed`) and logs nothing.
   */
  decide(callId: string, decision: ApprovalDecision): Promise<TurnOutcome>;
  /** The logged approval requests without a decision, in model order. */
  pendingApprovals(): PendingApproval[];
  /**
   * Answers a tool's pending question (`input/request`, e.g. `ask_user`'s): the value must match
   * the request's schema. Logs `input/response` in a turn of its own and, once nothing of the
   * paused step is pending, continues the turn (the asking tool runs with `context.answer`).
   * Rejects with `InputError` (`unknown-request`, `already-answered`, `cancelled`,
   * `invalid-value`) and logs nothing.
   */
  respond(id: string, answer: InputAnswer): Promise<TurnOutcome>;
  /** The logged questions without an answer, in model order. */
  pendingInputs(): PendingInput[];
  /**
   * Answers several pending approvals and questions at once and streams the turn that continues
   * the paused one (what a UI that collected a person's answers sends). Every answer is checked
   * first — the checks of `decide` and `respond`, `approval/decide` included — and on any refusal
   * nothing is logged (all or nothing); then the batch is queued as one, so ONE turn logs every
   * answer (in the order they were asked) and, once nothing of the paused step is pending, runs
   * the held calls and calls the model again. The stream is `stream`'s: that turn's events, then
   * its outcome. Throws at once what the log refuses (`ApprovalError`, `InputError`; an empty
   * batch or a call or question answered twice in it: `LoopError('invalid-options')` /
   * `invalid-decision` / `invalid-value`); a refusal by an `approval/decide` listener (or an
   * answer that lost a race meanwhile) fails the iteration and `outcome` instead, nothing logged.
   */
  streamAnswers(answers: AnswerBatch, options?: AnswerStreamOptions): TurnStream;
  /**
   * The checks `streamAnswers` makes before it logs anything, without logging or queueing — its
   * subagents' answers included (each child opened and checked, recursively): every call and
   * question known and pending, each answered once with the right kind, a question's value valid
   * for its schema. Rejects with the first refusal (`ApprovalError`, `InputError`,
   * `LoopError('invalid-options')`). For a server that answers a refused batch with an HTTP error
   * (409) before it starts streaming; `approval/decide` listeners are not asked here.
   */
  checkAnswers(answers: AnswerBatch): Promise<void>;
}

export type { PendingApproval, PendingInput };
