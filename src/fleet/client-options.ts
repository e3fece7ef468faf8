// What the fleet client's calls take: a turn to queue, a decision or an answer to queue as a
// continuation, how to await a turn, a new session's id and cwd.
import type { ApprovalDecision, InputAnswer } from "../loop/index.js";

export interface EnqueueOptions {
  readonly sessionId: string;
  readonly prompt: string;
  /** The name of a profile some worker serves; a turn under a name no worker serves stays queued. */
  readonly profile: string;
}

export interface DecisionOptions {
  readonly sessionId: string;
  /** The pending call (`PendingApproval.callId`). */
  readonly callId: string;
  readonly decision: ApprovalDecision;
  /** The profile the continued turn runs under (the one that paused it, as a rule). */
  readonly profile: string;
}

export interface ResponseOptions {
  readonly sessionId: string;
  /** The pending question (`PendingInput.id`). */
  readonly id: string;
  readonly answer: InputAnswer;
  readonly profile: string;
}

export interface AwaitOptions {
  /** Give up after this long (`FleetError('timeout')`; the turn is unaffected). Default: wait forever. */
  readonly timeoutMs?: number;
  /** How often to look without a notification (ms, default 1000). */
  readonly pollMs?: number;
  readonly signal?: AbortSignal;
  /**
   * Give up on a running turn whose worker died when nobody will recover it, as `stream()` judges
   * it (decision 0040): `FleetError('worker-lost')` once no worker has held its liveness lock for
   * the client's `deadAfterMs`, or the lease lapsed and no worker recovered the turn within another
   * lease. The turn is left as it is (the next worker to start closes it). Default false: wait.
   */
  readonly untilLost?: boolean;
}

export interface NewSessionOptions {
  /** Default: a new random id. */
  readonly id?: string;
  /** Recorded in the session meta (tools' working directory). */
  readonly cwd?: string;
}
