// reconstructRequests: for every `step/start` in a log, the request that step sent.
//
// History comes from an independent fold written here (a plain array of surface messages,
// copied on replace) over the public `deriveEventMessage`, never from a live session's cache:
// the dev-mode invariant compares the loop's requests against this, so it must not share the
// loop's caching.
//
// Cost: linear in the log. Steps between two replaces share one append-only backing array and
// remember only their length; a replace starts a new backing array (copy-on-write), so earlier
// steps' views stay intact. A step's `history` and `request` are materialized on first access
// (O(that request's length)) and memoized.
import { type EpochHeader, foldHeaderEvent } from "../header/index.js";
import type { Message } from "../messages/index.js";
import { deriveEventMessage, type SessionEvent } from "../session/index.js";
import { composeRequest } from "./compose.js";
import { type HistoryView, ReconstructError, type ReconstructedRequest } from "./types.js";
import type { ModelRequest } from "../llm/core.js";

/**
 * Events that can only exist once the step's request was answered (or the step ended). Not
 * `llm/retry`: a step whose attempt failed because a provider-side cache it named was gone logs
 * the retry and then a header record with the new config before sending again — the step's
 * request is the one whose answer reached history.
 */
export const AFTER_DISPATCH: ReadonlySet<string> = new Set([
  "assistant/message",
  "tool/call",
  "tool/result",
  "step/end",
]);

interface PendingStep {
  readonly turn: number;
  readonly step: number;
  readonly seq: number;
  /** The backing array in force at the boundary, and how much of it this step saw. */
  readonly backing: readonly Message[];
  readonly length: number;
}

/** A reconstructed request whose `history` and `request` are own, enumerable, lazy properties. */
function lazyRequest(p: PendingStep, header: EpochHeader): ReconstructedRequest {
  let history: readonly Message[] | undefined;
  let request: ModelRequest | undefined;
  // Accessors in the literal (own, enumerable; made non-configurable by the freeze): one object
  // shape for every request instead of a defineProperty per lazy field.
  const out = {
    turn: p.turn,
    step: p.step,
    stepStartSeq: p.seq,
    header,
    get history(): readonly Message[] {
      history ??= Object.freeze(p.backing.slice(0, p.length));
      return history;
    },
    get request(): ModelRequest {
      request ??= composeRequest(header, out.history);
      return request;
    },
  } as ReconstructedRequest;
  let view: HistoryView | undefined;
  const historyView = (): HistoryView => (view ??= Object.freeze({ messages: p.backing, length: p.length }));
  Object.defineProperty(out, "historyView", { enumerable: false, value: historyView });
  return Object.freeze(out);
}

/**
 * Every loop request recorded in `events`, in order. A step's history is fixed at its
 * `step/start` (the boundary); its header is the fold of every event up to dispatch, i.e. up to
 * the step's first model output (`assistant/message`, a tool event) or its `step/end` (a header
 * record after an `llm/retry` re-prepared the step: the request that answered is the one listed) — the loop records the header after the `agent/request` waterfall, whose own
 * appends already come after the boundary and so belong to the next request.
 *
 * A step whose `step/end` says `dispatched: false` (the loop ended it before handing the request
 * to `llm/stream`), or that ended with no header ever logged (crashed before dispatch), sent
 * nothing and is not listed. Throws `HeaderError` for a corrupt header
 * record and `ReconstructError` for model output with no header or a replace the surface
 * cannot take.
 */
export function reconstructRequests(events: readonly SessionEvent[]): ReconstructedRequest[] {
  const out: ReconstructedRequest[] = [];
  let messages: Message[] = [];
  let header: EpochHeader | undefined;
  let pending: PendingStep | undefined;

  const finalize = (p: PendingStep, by: SessionEvent | undefined): void => {
    if (by?.type === "step/end" && (by as SessionEvent<"step/end">).data.dispatched === false) return; // ended before dispatch
    if (header !== undefined) {
      out.push(lazyRequest(p, header));
      return;
    }
    if (by === undefined || by.type === "step/end") return; // never dispatched
    throw new ReconstructError(
      "no-header-at-dispatch",
      `step ${p.step} of turn ${p.turn} (step/start at seq ${p.seq}) has model output at seq ${by.seq} but no request header was logged`,
      by.seq,
    );
  };

  for (const event of events) {
    if (pending !== undefined && AFTER_DISPATCH.has(event.type)) {
      finalize(pending, event);
      pending = undefined;
    }
    header = foldHeaderEvent(header, event);
    if (event.type === "step/start") {
      const data = (event as SessionEvent<"step/start">).data;
      pending = { turn: data.turn, step: data.step, seq: event.seq, backing: messages, length: messages.length };
      continue;
    }
    const message = event.surfaceOp === undefined ? undefined : deriveEventMessage(event);
    if (message === undefined) continue;
    const op = event.surfaceOp!;
    if (op === "append") {
      messages.push(message);
    } else {
      if (op.start < 0 || op.end < op.start || op.end >= messages.length) {
        throw new ReconstructError(
          "bad-replace",
          `${event.type} at seq ${event.seq} replaces ${op.start}..${op.end} on a surface of ${messages.length}`,
          event.seq,
        );
      }
      messages = [...messages.slice(0, op.start), message, ...messages.slice(op.end + 1)];
    }
  }
  if (pending !== undefined) finalize(pending, undefined);
  return out;
}
