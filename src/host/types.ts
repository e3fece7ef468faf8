// The agent host's vocabulary and contracts: its options, the host handle, per-prompt options,
// the clock it schedules idle eviction on, its statistics, and the layer's error type. The
// behaviour behind them (FIFO per session, eviction, draining) is written in README.md.
import { KeelsonError } from "../errors/index.js";
import type {
  AgentProfile,
  AnswerBatch,
  ApprovalDecision,
  InputAnswer,
  PendingApproval,
  PendingInput,
  TurnEvent,
  TurnOutcome,
  TurnStream,
} from "../loop/index.js";
import type { UserContent } from "../messages/index.js";
import type { SessionEvent } from "../session/index.js";
import type { SessionStore } from "../store/index.js";

/**
 * Time for the host's idle eviction. The default reads `Date.now()` and schedules with
 * `setTimeout`, unref'd (a host never keeps a process alive); tests inject a manual clock.
 */
export interface HostClock {
  /** Milliseconds (any epoch; only differences are used). */
  now(): number;
  /** Calls `fn` once after `ms`; the returned function cancels it (a no-op once it ran). */
  setTimer(fn: () => void, ms: number): () => void;
}

export interface AgentHostOptions {
  /** Where sessions live. The host opens, resumes and releases sessions in it; it never closes it (the caller owns it). */
  readonly store: SessionStore;
  /** The profile every session runs under (registered as `default`). Give this or `profiles`. */
  readonly profile?: AgentProfile;
  /** Profiles by name; a prompt picks one with its `profile` option (see `HostPromptOptions.profile`). */
  readonly profiles?: Readonly<Record<string, AgentProfile>>;
  /**
   * Idle agents kept open (default 100). Opening another evicts the least recently used idle
   * agent. Busy agents (a turn running or queued) are never evicted, so more than `maxOpen`
   * agents are open while more than `maxOpen` sessions are busy.
   */
  readonly maxOpen?: number;
  /** An agent idle this long (ms) is evicted (default 300 000; `Infinity`: only `maxOpen` evicts). */
  readonly idleMs?: number;
  readonly clock?: HostClock;
  /** Contained failures the host cannot hand to a caller (an eviction whose flush failed): for logs. */
  readonly onError?: (error: unknown, where: string) => void;
}

/** How a prompt is queued. */
export interface HostPromptOptions {
  /**
   * The profile the turn runs under. Without it: the profile the session is open with, or — when
   * it is not open — `default` (the `profile` option), or the only profile. A profile other than
   * the open agent's reopens the session under it when the turn's time comes (a new loop instance).
   */
  readonly profile?: string;
  /** `queue` (default): wait behind the session's running and queued turns. `reject`: `HostError('busy')` if there are any. */
  readonly ifBusy?: "queue" | "reject";
  /** Aborting it drops the prompt while it waits (`HostError('cancelled')`), or cancels its turn once it runs. */
  readonly signal?: AbortSignal;
}

export interface HostStreamOptions extends HostPromptOptions {
  /** Bound on buffered live delta characters for a lagging consumer (the loop's default: 1 MiB). */
  readonly maxBufferedChars?: number;
}

export interface HostFollowOptions {
  /** The last seq the client has (events after it are delivered); default -1 (everything). */
  readonly from?: number;
  readonly maxBufferedChars?: number;
}

export interface HostCloseOptions {
  /**
   * `drain` (default): running and queued turns run to their end. `cancel`: queued prompts are
   * dropped (`HostError('closed')`) and running turns cancelled (they end `aborted` in the log).
   */
  readonly mode?: "drain" | "cancel";
}

export interface HostStats {
  /** Agents open (loaded, holding their session in the store). */
  readonly open: number;
  /** Turns running now (at most one per session). */
  readonly running: number;
  /** Prompts waiting behind a running turn or for their session to open. */
  readonly queued: number;
}

/** What a session waits for: its pending approvals and questions, in model order. */
export interface HostPending {
  readonly approvals: readonly PendingApproval[];
  readonly inputs: readonly PendingInput[];
}

/** Prompt content, as `agent.send` takes it. */
export type HostPrompt = string | readonly UserContent[];

/**
 * Many sessions in one process, one running turn per session. Every prompt runs as its own turn,
 * in the order it was queued for its session; sessions open on first use (resumed from the store,
 * or created with that id) and are evicted when idle.
 */
export interface AgentHost {
  /**
   * Queues `prompt` for `sessionId` and resolves with its turn's outcome (after the turn's log is
   * flushed). Rejects with `HostError` (`invalid-id`, `invalid-prompt`, `unknown-profile`,
   * `busy`, `closed`, `cancelled`) or with the store's or loop's error when the session cannot
   * be opened.
   */
  send(sessionId: string, prompt: HostPrompt, options?: HostPromptOptions): Promise<TurnOutcome>;
  /**
   * Queues a decision on a pending approval of `sessionId` as a turn of the session's FIFO (the
   * session opened if it is not): `agent.decide(callId, decision)`, resolving with the continued
   * turn's outcome. Rejects as `send` does, and with the loop's `ApprovalError` for a decision the
   * session refuses (nothing logged).
   */
  decide(
    sessionId: string,
    callId: string,
    decision: ApprovalDecision,
    options?: HostPromptOptions,
  ): Promise<TurnOutcome>;
  /** Like `decide`, for an answer to a pending question (`agent.respond`; `InputError` when refused). */
  respond(sessionId: string, id: string, answer: InputAnswer, options?: HostPromptOptions): Promise<TurnOutcome>;
  /**
   * Queues `prompt` like `send` and streams its turn (`agent.stream`'s events) once it starts.
   * Throws `HostError` at once for what is refused at the door (`invalid-id`, `invalid-prompt`,
   * `unknown-profile`, `busy`, `closed`). Closing the iteration, `cancel()` or the signal drop the
   * prompt while it waits (the iteration and `outcome` then fail with `HostError('cancelled')`;
   * nothing is logged) and cancel the turn once it runs (it ends `aborted`).
   */
  stream(sessionId: string, prompt: HostPrompt, options?: HostStreamOptions): TurnStream;
  /**
   * Queues answers to the session's pending approvals and questions (`agent.streamAnswers`) as a
   * turn of its FIFO, like `decide`, and streams the turn that continues the paused one, like
   * `stream`. The answers are checked when the turn's time comes: what the log refuses
   * (`ApprovalError`, `InputError`, nothing logged) fails the iteration and `outcome`. Throws
   * `HostError` at once as `stream` does.
   */
  streamAnswers(sessionId: string, answers: AnswerBatch, options?: HostStreamOptions): TurnStream;
  /**
   * Checks answers the way `streamAnswers` will (`agent.checkAnswers`: pending, the right kind, a
   * question's schema, its subagents' answers included) without logging anything: in the
   * session's FIFO like a decision (the session is opened if it is not), so a server can answer a
   * refused batch with 409 before it streams. Rejects with the loop's `ApprovalError` /
   * `InputError`, or `HostError` as `decide` does. The turn that follows checks again.
   */
  checkAnswers(sessionId: string, answers: AnswerBatch, options?: HostPromptOptions): Promise<void>;
  /**
   * Cancels the session's turn: the prompt under way — its turn ends `aborted` (with `reason`;
   * its caller's outcome says so; an answer running through a subagent stops the child's turn and
   * leaves the session paused), or, admitted but its agent still opening, it is dropped
   * (`HostError('cancelled')`, nothing created) — resolving at once, also while the host drains.
   * With none under way, a turn paused for a person is closed in a turn of its own, queued like a
   * decision (the session is opened if it is not; its waiting calls end `aborted`, after which
   * deciding them is `cancelled`). Prompts waiting behind stay queued. A session that neither
   * runs nor waits: nothing happens. One the store does not have: `HostError('not-found')`.
   */
  cancel(sessionId: string, reason?: string): Promise<void>;
  /**
   * What the session waits for: the open agent's pending approvals and questions, or — when it is
   * not open — read from the store (read-only); none for a session the store does not have.
   * What `parseChatRequest(body, { pending })` (keelson/serve) checks a UI's answers against.
   * `HostError` `invalid-id`, `closed`.
   */
  pending(sessionId: string): Promise<HostPending>;
  /**
   * The session's committed events as they stand: a frozen snapshot of the open agent's log, or —
   * when it is not open — read from the store (read-only: nothing opened, locked or written). What
   * a reloaded page's history is rebuilt from: `uiMessagesFromLog(await host.log(id))`
   * (keelson/serve). `HostError` `invalid-id`, `not-found`, `closed`.
   */
  log(sessionId: string): Promise<readonly SessionEvent[]>;
  /**
   * A reconnecting client's feed: the open agent's `follow` (committed events after `from`, then
   * the turn in flight live), or — when the session is not open — its committed events read from
   * the store. `HostError` `invalid-id`, `not-found` (no such session), `position-beyond-log`
   * (`from` at or past the end of the log), `invalid-position` (not an integer ≥ -1), `closed`,
   * before any event.
   */
  follow(sessionId: string, options?: HostFollowOptions): Promise<AsyncIterableIterator<TurnEvent>>;
  /** Counts of open agents, running turns and waiting prompts. */
  stats(): HostStats;
  /**
   * Refuses new prompts (`HostError('closed')`), lets running and queued turns end (or cancels
   * them: `mode: 'cancel'`), then disposes every agent (flushed and released). Idempotent; a
   * `mode: 'cancel'` while a drain is under way escalates it (the same promise).
   */
  close(options?: HostCloseOptions): Promise<void>;
}

export type HostErrorCode =
  /** A session id that is not a safe session id (refused before the store is touched). */
  | "invalid-id"
  /** A prompt that is neither a string nor an array of content parts. */
  | "invalid-prompt"
  /** A prompt that alone is far over the context window of the model its turn would run on (loop's `prompt-too-large`). */
  | "prompt-too-large"
  /** `createAgentHost` options that cannot work (no profile, a bad `maxOpen` / `idleMs`), or a bad `ifBusy`. */
  | "invalid-options"
  /** A profile that is not usable (no model, no provider, a bad name). */
  | "invalid-profile"
  /** A prompt names a profile the host does not have, or names none where several exist and none is `default`. */
  | "unknown-profile"
  /** `ifBusy: 'reject'` and the session has a turn running or queued. */
  | "busy"
  /** The host is closing or closed. */
  | "closed"
  /** A waiting prompt was dropped (its stream closed, `cancel()`, its signal) before its turn started. */
  | "cancelled"
  /** `follow` of a session the store does not have. */
  | "not-found"
  /** `follow({ from })` with a `from` that is not an integer ≥ -1. */
  | "invalid-position"
  /** `follow({ from })` at or past the end of the log. */
  | "position-beyond-log"
  /**
   * `follow` of a session not open in this host whose log ends in an open turn: another process
   * runs it (or one that stopped left it open): thrown after the committed events, which are all
   * this host can give.
   */
  | "open-elsewhere";

export class HostError extends KeelsonError<HostErrorCode> {}
