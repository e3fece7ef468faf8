// `agent.stream()`: queues a prompt and returns the feed of the turn that claims it, with its
// outcome. Closing the feed early, the caller's signal or `cancel()` cancels that turn (at once
// when it runs, as it starts when it is still queued).
import { deferred, type Settle } from "./inbox.js";
import { checkStreamOptions, type OptionsDoor, signalReason } from "./stream-options.js";
import { type FeedSource, TurnFeed } from "./turn-feed.js";
import type { TurnEvent } from "./turn-events.js";
import { LoopError, type StreamOptions, type TurnOutcome, type TurnStream } from "./types.js";

export interface TurnStreamPort extends FeedSource {
  /** Queues the prompt; `onStart` runs when its turn has logged `turn/start`. */
  readonly enqueue: (settle: Settle<TurnOutcome>, onStart: (turn: number, startSeq: number) => void) => void;
  /** Cancels the running turn. */
  readonly cancel: (reason: string) => void;
  /** The prompt `settle` answers is cancelled before its turn started: prompts queued later go to another turn. */
  readonly closeQueued?: (settle: Settle<TurnOutcome>) => void;
}

export function openTurnStream(port: TurnStreamPort, options: StreamOptions = {}, door?: OptionsDoor): TurnStream {
  checkStreamOptions(options, undefined, door); // before anything is queued
  const { promise: outcome, settle } = deferred<TurnOutcome>();
  outcome.catch(() => {}); // the feed rethrows it to whoever iterates
  let state: "queued" | "running" | "ended" = "queued";
  let cancelled: string | undefined;
  const cancel = (reason: string): void => {
    if (state === "ended" || cancelled !== undefined) return;
    cancelled = reason;
    if (state === "running") port.cancel(reason);
    else port.closeQueued?.(settle);
  };
  const feed = new TurnFeed(
    port,
    { kind: "turn", outcome },
    {
      ...(options.maxBufferedChars === undefined ? {} : { maxBufferedChars: options.maxBufferedChars }),
      onClose: () => cancel("stream closed"),
    },
  );
  const onAbort = (): void => cancel(signalReason(options.signal!));
  options.signal?.addEventListener("abort", onAbort, { once: true });
  outcome
    .finally(() => {
      state = "ended";
      options.signal?.removeEventListener("abort", onAbort);
    })
    .catch(() => {});
  port.enqueue(settle, (turn, startSeq) => {
    state = "running";
    feed.startAt(startSeq, turn);
    if (cancelled !== undefined) port.cancel(cancelled);
  });
  if (options.signal?.aborted) onAbort();
  return turnStreamOf(
    outcome,
    cancel,
    () => feed,
    () => feed.durableThrough(),
  );
}

/**
 * A `TurnStream` over its outcome, its cancel and its events (which may be iterated once), and —
 * when its committed events are one log's — how far that log is durable.
 */
export function turnStreamOf(
  outcome: Promise<TurnOutcome>,
  cancel: (reason: string) => void,
  events: () => AsyncIterator<TurnEvent>,
  durableThrough?: () => number,
): TurnStream {
  let iterated = false;
  return {
    outcome,
    cancel: (reason = "cancelled") => cancel(reason),
    ...(durableThrough === undefined ? {} : { durableThrough }),
    [Symbol.asyncIterator]() {
      if (iterated)
        throw new LoopError("already-iterated", "a turn stream can be iterated once (follow() reads it again)");
      iterated = true;
      return events();
    },
  };
}
