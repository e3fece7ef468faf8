// The transient `data-keelson` part of a committed event (ui-encoder.ts sends one per event): its
// log position and identifying fields — never its content — with a turn end's free text bounded
// (an error's message masked as the stream's error chunk is).
import type { CommittedTurnEvent } from "../loop/index.js";
import type { TurnEndReason } from "../session/index.js";
import { boundedErrorText } from "./ui-parts.js";
import type { KeelsonData } from "./ui-types.js";

/**
 * A turn-end reason with its free text bounded — an error's message is the text the stream's
 * `error` chunk carries (`errorText`: by default the code only, ui-encoder.ts), an abort's or a
 * block's reason cut short.
 */
function boundedReason(reason: TurnEndReason, errorText: (error: unknown) => string): TurnEndReason {
  switch (reason.kind) {
    case "error":
      return { ...reason, message: errorText(reason) };
    case "aborted":
    case "rejected":
      return { ...reason, reason: boundedErrorText(reason.reason) };
    default:
      return reason;
  }
}

/** The `data-keelson` payload for a committed event: its position and identifying fields, never content. */
export function keelsonData(event: CommittedTurnEvent, errorText: (error: unknown) => string): KeelsonData {
  const base = { seq: event.seq, event: event.type };
  switch (event.type) {
    case "turn-start":
    case "compaction-start":
    case "compaction-end":
      return { ...base, turn: event.turn };
    case "step-start":
    case "step-end":
    case "assistant-message":
      return { ...base, turn: event.turn, step: event.step };
    case "tool-call-ready":
    case "tool-result":
    case "approval-request":
      return { ...base, turn: event.turn, step: event.step, callId: event.callId };
    case "approval-decision":
      return { ...base, callId: event.callId };
    case "input-request":
    case "input-response":
      return { ...base, callId: event.id };
    case "retry":
      return { ...base, turn: event.turn, step: event.step, attempt: event.attempt, code: event.code };
    case "turn-end": {
      const reason = boundedReason(event.reason, errorText);
      const saved = event.outcome?.saved;
      return { ...base, turn: event.turn, reason, ...(saved === undefined ? {} : { saved }) };
    }
    case "user-message":
      return base;
    case "log-event":
      return { ...base, logType: event.event.type };
  }
}
