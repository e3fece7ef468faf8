// pullStream: a web ReadableStream over a turn's events, read only as fast as its consumer
// reads (so a slow client lags in the turn feed, where deltas coalesce within a bound and
// committed events wait in the log — never here). What happens to the turn when the consumer
// cancels (the client disconnected) is the caller's `cancelOnDisconnect`. An iteration that
// throws, or an event the encoder refuses (`invalid-event`), ends the stream with the encoder's
// error items — or, with `failBeforeOutput` and nothing sent yet, errors the stream itself, so
// that an HTTP helper can answer the failure with a status instead of a 200 stream. With a
// `heartbeat` and `keepAliveMs`, a read that has waited that long since the last item gets a
// heartbeat item (keep-alive.ts), and the event it waits for follows — none before the first
// item when the status waits for it (`failBeforeOutput`).
import { QuietTimer } from "./keep-alive.js";
import type { EncodeOptions } from "./types.js";

/** What turns events into output items (UI chunks, SSE frames). */
export interface PullEncoder<T, O> {
  /** May throw (an event it cannot write): the stream then ends as for an iteration that threw. */
  encode(event: T): readonly O[];
  /** The items after the last event; `error` when the iteration threw. Must not throw. */
  end(error?: { readonly error: unknown }): readonly O[];
  /** True when no further event is wanted (the UI stream's `finish` was sent). */
  readonly finished?: boolean;
  /** An item that says nothing (an SSE comment): sent after `keepAliveMs` without an item. */
  readonly heartbeat?: () => O;
}

export interface PullOptions extends EncodeOptions {
  /**
   * A failure before the first item errors the stream with it (`reader.read()` rejects) instead
   * of being encoded: what the node:http helpers use to answer it with a status (http-response.ts).
   */
  readonly failBeforeOutput?: boolean;
  /** With the encoder's `heartbeat`: milliseconds without an item before one is sent (0 or absent: never). */
  readonly keepAliveMs?: number;
}

export function pullStream<T, O>(
  events: AsyncIterable<T>,
  encoder: PullEncoder<T, O>,
  options: PullOptions = {},
): ReadableStream<O> {
  let iterator: AsyncIterator<T> | undefined;
  let closed = false;
  let sent = false;
  /** Whether a read waits on the events (what a heartbeat may answer). */
  let waiting = false;
  let stream: ReadableStreamDefaultController<O> | undefined;
  const heartbeat = encoder.heartbeat;
  const quiet =
    heartbeat === undefined || (options.keepAliveMs ?? 0) <= 0
      ? undefined
      : new QuietTimer(options.keepAliveMs!, () => {
          if (closed || !waiting || (!sent && options.failBeforeOutput === true)) return false;
          // One unread at most: a reader that stopped reading without cancelling gathers no more.
          if (stream === undefined || (stream.desiredSize ?? -1) < 0) return false;
          stream.enqueue(heartbeat());
          return true;
        });
  const release = (): void => {
    closed = true;
    try {
      iterator ??= events[Symbol.asyncIterator](); // a feed is live from its creation: close it even if never read
      iterator.return?.()?.catch(() => {});
    } catch {
      // an iterable that cannot be iterated again has nothing of ours to close
    }
  };
  /** Stops reading events without a client's disconnect: a turn stream is left to run (and be saved). */
  const stopReading = (): void => {
    if (!isTurnStream(events)) release();
  };
  const fail = (controller: ReadableStreamDefaultController<O>, error: unknown): void => {
    closed = true;
    quiet?.stop();
    if (!sent && options.failBeforeOutput === true) {
      controller.error(error);
      return;
    }
    for (const item of encoder.end({ error })) controller.enqueue(item);
    controller.close();
  };
  return new ReadableStream<O>(
    {
      start(controller) {
        stream = controller;
      },
      async pull(controller) {
        for (;;) {
          let next: IteratorResult<T>;
          try {
            // Quiet from the first read (a follow may wait long); a stream nobody reads arms no timer.
            if (iterator === undefined && options.failBeforeOutput !== true) quiet?.touch();
            iterator ??= events[Symbol.asyncIterator]();
            waiting = true;
            next = await iterator.next();
          } catch (error) {
            if (!closed) fail(controller, error);
            return;
          } finally {
            waiting = false;
          }
          if (closed) return; // cancelled while waiting
          let items: readonly O[];
          try {
            items = next.done ? encoder.end() : encoder.encode(next.value);
          } catch (error) {
            if (!next.done) stopReading();
            fail(controller, error);
            return;
          }
          for (const item of items) controller.enqueue(item);
          if (items.length > 0) {
            sent = true;
            quiet?.touch();
          }
          if (next.done || encoder.finished === true) {
            if (!next.done) release(); // e.g. a follow feed past the turn's end: stop reading it
            closed = true;
            quiet?.stop();
            controller.close();
            return;
          }
          if (items.length > 0) return;
        }
      },
      cancel() {
        quiet?.stop();
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

/**
 * `agent.stream()`'s result (and `host.stream()`'s, `streamAnswers`'): closing its iterator cancels
 * the turn; the turn may fail to start (its session locked), before its first event.
 */
export const isTurnStream = (events: unknown): boolean =>
  typeof (events as { cancel?: unknown } | null)?.cancel === "function" && "outcome" in (events as object);
