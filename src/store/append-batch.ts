// The check every store makes of a batch handed to `append` before buffering any of it: seqs
// continue the stored log exactly, and every event is a well-formed envelope. A bad batch is
// rejected whole (`seq-gap` / `invalid-event`), so nothing of it is buffered.
import { previewJson } from "../json/index.js";
import { SessionError, type SessionEvent, validateEnvelope } from "../session/index.js";
import { StoreError } from "./types.js";

/** Throws `StoreError('seq-gap' | 'invalid-event')` unless `events` may follow a log of `nextSeq` events. */
export function checkAppendBatch(sessionId: string, nextSeq: number, events: readonly SessionEvent[]): void {
  events.forEach((event, i) => {
    if (event?.seq !== nextSeq + i)
      throw new StoreError(
        "seq-gap",
        `session ${sessionId}: expected seq ${nextSeq + i}, got ${previewJson(event?.seq)}; the batch was not buffered`,
      );
    try {
      validateEnvelope(event, event.seq);
    } catch (e) {
      if (e instanceof SessionError)
        throw new StoreError(
          "invalid-event",
          `session ${sessionId}: refusing to store a malformed event: ${e.message}; the batch was not buffered`,
          { cause: e },
        );
      throw e;
    }
  });
}
