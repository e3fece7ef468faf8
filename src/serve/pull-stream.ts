// pullStream: a web ReadableStream over a turn's events, read only as fast as its consumer
// reads (so a slow client lags in the turn feed, where deltas coalesce within a bound and
// committed events wait in the log — never here). What happens to the turn when the consumer
// cancels (the client disconnected) is the caller's `cancelOnDisconnect`.
import type { EncodeOptions } from "./types.js";

/** What turns events into output items (UI chunks, SSE frames). */
export interface PullEncoder<T, O> {
  encode(event: T): readonly O[];
  /** The items after the last event; `error` when the iteration threw. */
  end(error?: { readonly error: unknown }): readonly O[];
  /** True when no further event is wanted (the UI stream's `finish` was sent). */
  readonly finished?: boolean;
}

export function pullStream<T, O>(
  events: AsyncIterable<T>,
  encoder: PullEncoder<T, O>,
  options: EncodeOptions = {},
): ReadableStream<O> {
  let iterator: AsyncIterator<T> | undefined;
  let closed = false;
  const release = (): void => {
    closed = true;
    try {
      iterator ??= events[Symbol.asyncIterator](); // a feed is live from its creation: close it even if never read
      iterator.return?.()?.catch(() => {});
    } catch {
      // an iterable that cannot be iterated again has nothing of ours to close
    }
  };
  return new ReadableStream<O>(
    {
      async pull(controller) {
        iterator ??= events[Symbol.asyncIterator]();
        for (;;) {
          let next: IteratorResult<T>;
          try {
            next = await iterator.next();
          } catch (error) {
            if (closed) return;
            for (const item of encoder.end({ error })) controller.enqueue(item);
            closed = true;
            controller.close();
            return;
          }
          if (closed) return; // cancelled while waiting
          const items = next.done ? encoder.end() : encoder.encode(next.value);
          for (const item of items) controller.enqueue(item);
          if (next.done || encoder.finished === true) {
            if (!next.done) release(); // e.g. a follow feed past the turn's end: stop reading it
            closed = true;
            controller.close();
            return;
          }
          if (items.length > 0) return;
        }
      },
      cancel() {
        if (closed) return;
        if (options.cancelOnDisconnect === true) {
          (events as { cancel?: (reason?: string) => void }).cancel?.("client disconnected");
          release();
        } else if (!isTurnStream(events)) release();
        // A turn stream is left unread: returning it would cancel the turn, and its feed ends with it.
        closed = true;
      },
    },
    { highWaterMark: 0 },
  );
}

/** `agent.stream()`'s result: closing its iterator cancels the turn. */
const isTurnStream = (events: object): boolean =>
  typeof (events as { cancel?: unknown }).cancel === "function" && "outcome" in events;
