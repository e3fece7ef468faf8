// One streaming attempt through a provider SDK, the shape every adapter shares: the caller's
// signal forwarded to a controller of our own (so a deadline can abort the request without
// touching the caller's signal), the connect / first-event / stall deadlines
// (attempt-deadlines.ts), the wire's event mapper fed event by event, and every failure turned
// into the adapter's typed error. A cancel is an end (`finish: aborted`), never a failure —
// whether the SDK's iterator stops silently, throws its AbortError or never settles (the read
// ends at the abort: until-aborted.ts) — and a passed deadline, a
// cancel and a clean end (the mapper's closing chunks) are told apart here.
import { AttemptDeadlines } from "./attempt-deadlines.js";
import type { ProviderError, StreamChunk } from "./types.js";
import { untilAborted } from "./until-aborted.js";

export interface DeadlineSettings {
  readonly connectTimeoutMs: number;
  readonly firstByteTimeoutMs: number;
  readonly stallTimeoutMs: number;
}

/** How one wire's events become Keelson chunks. */
export interface EventMapper<E> {
  map(event: E): Iterable<StreamChunk>;
  /** The closing chunks once the iterator is done; throws when the stream was cut off. */
  end(): Iterable<StreamChunk>;
}

export interface SdkAttempt<C, E> {
  /** Named in connection and deadline errors. */
  readonly baseURL: () => string;
  readonly deadlines: DeadlineSettings;
  readonly signal: AbortSignal;
  /** Loads the SDK and makes the client, on first use (not counted against the deadlines). */
  readonly connect: () => Promise<C>;
  /** Sends the request; resolves once the response headers arrived. */
  readonly open: (client: C, signal: AbortSignal) => Promise<AsyncIterable<E>>;
  readonly mapper: EventMapper<E>;
  /** The error to throw for a failure (`deadline`: the error of the deadline that passed, if one did). */
  readonly toError: (error: unknown, context: { deadline: ProviderError | undefined; baseURL: string }) => unknown;
}

export async function* sdkAttempt<C, E>(attempt: SdkAttempt<C, E>): AsyncGenerator<StreamChunk> {
  const { signal } = attempt;
  // Before the attempt: a missing SDK is the application's install, never a provider failure or retried.
  const client = await attempt.connect();
  const controller = new AbortController();
  const forward = (): void => controller.abort(signal.reason);
  signal.addEventListener("abort", forward, { once: true });
  if (signal.aborted) forward();
  let deadlines: AttemptDeadlines | undefined;
  try {
    deadlines = new AttemptDeadlines({ baseURL: attempt.baseURL(), ...attempt.deadlines }, () => controller.abort());
    deadlines.start();
    const events = await attempt.open(client, controller.signal);
    deadlines.responded();
    for await (const event of untilAborted(events, controller.signal)) {
      deadlines.received(); // the consumer's time is not the provider's silence
      for (const out of attempt.mapper.map(event)) yield out;
      deadlines.waiting();
    }
    deadlines.stop();
    if (deadlines.expired !== undefined) throw deadlines.error();
    if (signal.aborted) {
      yield { type: "finish", reason: "aborted" };
      return;
    }
    for (const out of attempt.mapper.end()) yield out;
  } catch (error) {
    if (signal.aborted && deadlines?.expired === undefined) {
      yield { type: "finish", reason: "aborted" };
      return;
    }
    throw attempt.toError(error, {
      deadline: deadlines?.expired === undefined ? undefined : deadlines.error(error),
      baseURL: attempt.baseURL(),
    });
  } finally {
    deadlines?.stop();
    signal.removeEventListener("abort", forward);
    controller.abort(); // releases the connection when the consumer stopped early
  }
}
