// Vocabulary of reconstruction: the request a loop step sent, as recovered from the log.
import type { EpochHeader } from "../header/index.js";
import type { ModelRequest } from "../llm/core.js";
import type { Message } from "../messages/index.js";
import { KeelsonError } from "../errors/index.js";

/**
 * One step's request as reconstructed from the log. `history` and `request` are computed on
 * first access (own, enumerable, memoized getters), so reconstructing a whole log is linear
 * and a caller pays for a request's messages only when it reads them.
 */
export interface ReconstructedRequest {
  readonly turn: number;
  readonly step: number;
  /** Seq of the step's `step/start` (the history boundary). */
  readonly stepStartSeq: number;
  /** The header folded from the events logged before dispatch. */
  readonly header: EpochHeader;
  /** Derived history at the boundary, without the prefix. */
  readonly history: readonly Message[];
  /** What the step sent, without the live parts (signal, session id). */
  readonly request: ModelRequest;
  /**
   * The history without copying it: its messages are the first `length` of `messages`, an array
   * this request may share with its neighbours (a later step's history extends it) — read only
   * below `length`. Two requests whose views share `messages` have the same first
   * `min(length)` messages, so a caller walking many requests compares each message once.
   * Not enumerable (a method, like `history` a view of the same fold).
   */
  historyView(): HistoryView;
}

/** See `ReconstructedRequest.historyView`. */
export interface HistoryView {
  readonly messages: readonly Message[];
  readonly length: number;
}

export type ReconstructErrorCode = "no-header-at-dispatch" | "bad-replace";

export class ReconstructError extends KeelsonError<ReconstructErrorCode> {
  readonly seq: number;
  constructor(code: ReconstructErrorCode, message: string, seq: number) {
    super(code, message);
    this.seq = seq;
  }
}

/** One problem `verifyLog` found. `seq` is absent for whole-log problems. */
export interface LogIssue {
  readonly code: string;
  readonly message: string;
  readonly seq?: number;
}

export interface LogReport {
  readonly ok: boolean;
  readonly events: number;
  readonly turns: number;
  readonly requests: number;
  readonly issues: readonly LogIssue[];
}
