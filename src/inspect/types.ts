// The inspector's contracts: where sessions come from (`InspectSource`, read-only by contract:
// a source never locks, repairs or writes a log), the error type, and the JSON shapes the
// server's endpoints return (the front end imports these as types only).
import { KeelsonError } from "../errors/index.js";
import type { EventKind } from "../event-text/index.js";
import type { EpochHeader } from "../header/index.js";
import type { Message } from "../messages/index.js";
import type { Session, SessionEvent } from "../session/index.js";

/** A session as a source loaded it: read-only, validated like a store load. */
export interface InspectedSession {
  readonly session: Session;
  /** Where the log lives, for `file:line` in verify problems (a path, or `postgres://…/db#id`). */
  readonly where: string;
  /** Seq of the log's first own line (line 2): 0, or a fork-by-reference's seed length. */
  readonly firstSeq: number;
  /** When the log was last written (ms since epoch). */
  readonly updatedAt: number;
}

/** A row of the sessions list: a readable session's summary, or why a log could not be read. */
export type ListedSession =
  | {
      readonly kind: "session";
      readonly id: string;
      readonly createdAt: number;
      readonly updatedAt: number;
      readonly cwd?: string;
      readonly parentSession?: string;
      /** A subagent's session: the parent session and the call that started it. */
      readonly spawnedBy?: { readonly session: string; readonly callId: string };
      readonly turns: number;
      readonly events: number;
      readonly lastPrompt?: string;
      /** The last turn is still open (a writer is running, or crashed). */
      readonly open: boolean;
      /** Tool calls awaiting a person's approval (absent when none). */
      readonly pendingApprovals?: number;
    }
  | { readonly kind: "unreadable"; readonly name: string; readonly code?: string; readonly problem: string };

/** How a watch follows its session, sent to the page when it is known or changes (the `notice` message). */
export interface LiveNotice {
  /** `notify`: the store pushes appends; `polling`: the source re-reads the log every `pollMs`. */
  readonly mode: "notify" | "polling";
  readonly pollMs?: number;
  readonly message: string;
}

/** A running watch of one session (`InspectSource.watch`). */
export interface InspectWatch {
  close(): Promise<void>;
}

/**
 * Where the inspector reads sessions from. Implementations must be read-only: no lock, no crash
 * repair, no torn-tail truncation, no write of any kind (a running writer keeps its log).
 */
export interface InspectSource {
  /** Names the store in the page and in messages (a directory, a redacted URL). */
  readonly label: string;
  /** Every stored session, oldest first; logs that cannot be read are listed as `unreadable`. */
  list(): Promise<ListedSession[]>;
  /** One session, read-only; throws an `InspectError('not-found')` or the store's error. */
  load(id: string): Promise<InspectedSession>;
  /**
   * Calls `onEvents` with the events committed after seq `fromSeq - 1`, in seq order, each once,
   * as they are appended; `onError` on a failure that does not end the watch; `onNotice` when
   * how the watch follows the session is known or changes (e.g. it fell back to polling).
   */
  watch(
    id: string,
    fromSeq: number,
    onEvents: (events: readonly SessionEvent[]) => void,
    onError: (error: unknown) => void,
    onNotice?: (notice: LiveNotice) => void,
  ): Promise<InspectWatch>;
  /** Releases what the source holds (watchers, connections). */
  close(): Promise<void>;
}

export type InspectErrorCode =
  | "not-found"
  | "bad-request"
  | "unauthorized"
  | "bad-option"
  | "no-ui"
  | "too-large"
  /** The session cannot be served that way here (a replay whose working directory is gone): 422. */
  | "unprocessable";

export class InspectError extends KeelsonError<InspectErrorCode> {}

// ── endpoint payloads ─────────────────────────────────────────────────────────────────────────

export interface SessionsPayload {
  readonly source: string;
  /** `children`: forks of the session; `subagents`: the sessions its calls started. */
  readonly sessions: readonly (ListedSession & {
    readonly children?: readonly string[];
    readonly subagents?: readonly string[];
  })[];
}

/** Where a row sits in the tree: a loop instance, a turn, a step, or a message-level event. */
/** A timeline row's kind: an event's (src/event-text), or a loop instance or fork boundary. */
export type RowKind = "instance" | EventKind;

/** One line of the timeline. */
export interface TimelineRow {
  /** Seq of the event (an instance row has the seq of the event that opened it). */
  readonly seq: number;
  readonly kind: RowKind;
  readonly depth: number;
  readonly turn?: number;
  readonly step?: number;
  /** One-line text (a preview; the full event is at `/events/:seq`). */
  readonly text: string;
  /** The event replaces these seqs on the surface (compaction, pruning). */
  readonly replaces?: readonly number[];
  /** Written by crash repair (an interrupted turn's closers). */
  readonly repair?: boolean;
  /** Inherited from the parent session (a fork's seed). */
  readonly inherited?: boolean;
  /** A retry, an error result, an error end. */
  readonly error?: boolean;
  /** 1-based index of the request this step sent (for `step` rows that dispatched one). */
  readonly request?: number;
  /** A subagent call's result row: the child session its result names. */
  readonly child?: string;
}

export interface VerifyProblem {
  readonly where: string;
  readonly line?: number;
  readonly seq?: number;
  readonly code: string;
  readonly message: string;
}

/**
 * `/api/sessions/:id/replay`: the session replayed with the current code (src/replay, run by
 * whoever started the inspector: `keelson inspect` replays with the CLI's own configuration) —
 * `keelson replay`'s report as text and as JSON.
 */
export interface ReplayPayload {
  readonly identical: boolean;
  readonly text: string;
  readonly report: unknown;
}

/** Replays a loaded session for the inspector (it never writes); see `InspectServerOptions.replay`. */
export type InspectReplay = (session: Session) => Promise<ReplayPayload>;

export interface VerifyPayload {
  readonly clean: boolean;
  readonly events: number;
  readonly turns: number;
  readonly requests: number;
  readonly problems: readonly VerifyProblem[];
}

export interface SessionPayload {
  readonly id: string;
  readonly where: string;
  readonly createdAt: number;
  readonly updatedAt: number;
  readonly cwd?: string;
  readonly parentSession?: string;
  readonly seedLength?: number;
  /**
   * A subagent's session: its parent and the call that started it, with the seq of that call's
   * result in the parent's log when the parent could be read (the row to jump to).
   */
  readonly spawnedBy?: { readonly session: string; readonly callId: string; readonly seq?: number };
  readonly events: number;
  readonly turns: number;
  readonly openTurn: number | null;
  readonly rows: readonly TimelineRow[];
}

export interface RequestListItem {
  readonly index: number;
  readonly turn: number;
  readonly step: number;
  readonly stepStartSeq: number;
  readonly messages: number;
}

/** Where a cache breakpoint falls (the Anthropic wire payload's `cache_control` marks). */
export interface Breakpoint {
  readonly segment: "tools" | "system" | "message";
  /** Keelson message index (prefix included) whose last block carries it, for `message`. */
  readonly message?: number;
  /** Position in the Anthropic payload: `messages[turn].content[block]`. */
  readonly turn?: number;
  readonly block?: number;
}

export interface RequestPayload extends RequestListItem {
  /** Exactly what `keelson requests <id> --step <index>` prints (without its final newline). */
  readonly text: string;
  readonly header: EpochHeader;
  readonly prefix: readonly Message[];
  /** The header snapshot that anchors this request's loop instance (it composed the prefix). */
  readonly instance?: { readonly seq: number; readonly reason: string; readonly number: number };
  readonly history: readonly Message[];
  /** Exactly what `keelson requests <id> --step <index> --wire <provider>` prints, per provider. */
  readonly wire: {
    readonly anthropic: string;
    readonly openai: string;
    readonly deepseek: string;
    readonly gemini: string;
  };
  readonly breakpoints: readonly Breakpoint[];
}

/** One header record of the log, with the header in force before and after it. */
export interface HeaderChange {
  readonly seq: number;
  readonly kind: "snapshot" | "delta";
  readonly reason?: string;
  /** What changed: the arms of a delta, or the arms that differ from the previous header for a snapshot. */
  readonly changed: readonly ("system" | "tools" | "config" | "messagePrefix")[];
  readonly before?: EpochHeader;
  readonly after: EpochHeader;
}
