// reconstructRequests: for every `step/start` in a log, the request that step sent.
//
// History comes from an independent fold written here (a plain array of surface nodes with
// splice on replace) over the public `deriveEventMessage`, never from a live session's cache:
// the dev-mode invariant compares the loop's requests against this, so it must not share the
// loop's caching. Linear in the log: each event is folded once; each request copies its history.
import { type EpochHeader, foldHeaderEvent } from "../header/index.js";
import type { Message } from "../messages/index.js";
import { deriveEventMessage, type SessionEvent } from "../session/index.js";
import { composeRequest } from "./compose.js";
import { ReconstructError, type ReconstructedRequest } from "./types.js";

const isHeaderEvent = (e: SessionEvent): boolean => e.type === "request/header" || e.type === "request/header-delta";

interface PendingStep {
  readonly turn: number;
  readonly step: number;
  readonly seq: number;
  readonly history: readonly Message[];
}

/**
 * Every loop request recorded in `events`, in order. A step's header is the fold of every event
 * before dispatch: the events before its `step/start` plus the header events that directly
 * follow it (the loop records the header after the boundary, before streaming).
 * Throws `HeaderError` for a corrupt header record and `ReconstructError` for a step that
 * dispatched with no header or a replace the surface cannot take.
 */
export function reconstructRequests(events: readonly SessionEvent[]): ReconstructedRequest[] {
  const out: ReconstructedRequest[] = [];
  const messages: Message[] = [];
  const seqs: number[] = [];
  let header: EpochHeader | undefined;
  let pending: PendingStep | undefined;

  const finalize = (p: PendingStep): void => {
    if (header === undefined) {
      throw new ReconstructError("no-header-at-dispatch", `step ${p.step} of turn ${p.turn} (step/start at seq ${p.seq}) was dispatched with no request header logged`, p.seq);
    }
    out.push({ turn: p.turn, step: p.step, stepStartSeq: p.seq, header, history: p.history, request: composeRequest(header, p.history) });
  };

  for (const event of events) {
    if (pending !== undefined && !isHeaderEvent(event)) {
      finalize(pending);
      pending = undefined;
    }
    header = foldHeaderEvent(header, event);
    if (event.type === "step/start") {
      const data = (event as SessionEvent<"step/start">).data;
      pending = { turn: data.turn, step: data.step, seq: event.seq, history: messages.slice() };
      continue;
    }
    const message = event.surfaceOp === undefined ? undefined : deriveEventMessage(event);
    if (message === undefined) continue;
    const op = event.surfaceOp!;
    if (op === "append") {
      messages.push(message);
      seqs.push(event.seq);
    } else {
      if (op.start < 0 || op.end < op.start || op.end >= messages.length) {
        throw new ReconstructError("bad-replace", `${event.type} at seq ${event.seq} replaces ${op.start}..${op.end} on a surface of ${messages.length}`, event.seq);
      }
      messages.splice(op.start, op.end - op.start + 1, message);
      seqs.splice(op.start, op.end - op.start + 1, event.seq);
    }
  }
  if (pending !== undefined) finalize(pending);
  return out;
}
