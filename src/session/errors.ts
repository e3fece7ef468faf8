// The session layer's one error class. Callers branch on `code`; people read the message.

export type SessionErrorCode =
  | "invalid-data"
  | "invalid-event"
  | "invalid-surface-op"
  | "replace-out-of-range"
  | "replace-splits-tool-pair"
  | "replace-provenance-mismatch"
  | "structure"
  | "seq-mismatch"
  | "reentrant-append"
  | "fork-boundary-out-of-range"
  | "fork-boundary-not-turn-end"
  | "fork-no-completed-turn"
  | "seed-out-of-range"
  | "invalid-header";
import { KeelsonError } from "../errors/index.js";

export class SessionError extends KeelsonError<SessionErrorCode> {
  /** The seq (or index) of the offending event, when there is one. */
  readonly seq: number | undefined;
  constructor(code: SessionErrorCode, message: string, seq?: number, options?: { cause?: unknown }) {
    super(code, message, options);
    this.seq = seq;
  }
}
