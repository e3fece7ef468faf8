// Keep-alive for the byte streams (plain SSE, the UI message stream's body): a proxy or load
// balancer that closes a connection idle for a minute (nginx's proxy_read_timeout, a cloud load
// balancer's idle timeout) would cut a stream that waits on a long tool call or a slow model. An
// SSE comment line after `keepAliveMs` without output keeps it open; every SSE reader skips
// comments (EventSource, the AI SDK's parser, readSSE). pull-stream.ts sends them.
import { ServeError } from "./types.js";
import { valueName } from "./value-name.js";

/** The default quiet time before a keep-alive comment (ms): under every common idle timeout. */
export const DEFAULT_KEEP_ALIVE_MS = 15_000;

/** The longest a timer can wait (Node turns a longer one into 1 ms). */
const MAX_TIMER_MS = 2_147_483_647;

export interface KeepAliveOptions {
  /**
   * Milliseconds without output after which a comment (`: keep-alive`) is sent; default 15,000;
   * 0 sends none. Where the status waits for a turn's first event (`pipeSSE` /
   * `pipeUIMessageStream` of a turn stream), none is sent before that event.
   */
  readonly keepAliveMs?: number;
}

/** The option's value (the default when absent); `ServeError('invalid-options')` unless an integer 0 … 2^31 − 1. */
export function keepAliveMsOf(options: KeepAliveOptions): number {
  const ms = options.keepAliveMs ?? DEFAULT_KEEP_ALIVE_MS;
  if (!Number.isSafeInteger(ms) || ms < 0 || ms > MAX_TIMER_MS)
    throw new ServeError(
      "invalid-options",
      `keepAliveMs must be an integer from 0 (none) to ${MAX_TIMER_MS} (milliseconds), got ${valueName(ms)}`,
    );
  return ms;
}

const encoder = new TextEncoder();

/** One keep-alive comment's bytes (a fresh array each time: a consumer may transfer what it reads). */
export const keepAliveComment = (): Uint8Array => encoder.encode(": keep-alive\n\n");

/**
 * One timer per stream, re-armed about once per `ms` (never per item): `onQuiet` runs once `ms`
 * passed since the last `touch()` (an item sent), and again every `ms` while nothing else is;
 * it returns whether it sent something (which counts as a touch). Unref'd where timers can be:
 * it never keeps a Node process alive on its own.
 */
export class QuietTimer {
  readonly #ms: number;
  readonly #onQuiet: () => boolean;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #last = 0;

  constructor(ms: number, onQuiet: () => boolean) {
    this.#ms = ms;
    this.#onQuiet = onQuiet;
  }

  /** Something was sent now. Starts the timer the first time. */
  touch(): void {
    this.#last = performance.now();
    if (this.#timer === undefined && this.#ms > 0) this.#arm(this.#ms);
  }

  stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #arm(delay: number): void {
    const timer = setTimeout(this.#fire, delay);
    (timer as { unref?: () => void }).unref?.(); // Node's; a browser's or a worker's timer is a number
    this.#timer = timer;
  }

  readonly #fire = (): void => {
    const quiet = performance.now() - this.#last;
    if (quiet < this.#ms) {
      this.#arm(this.#ms - quiet); // something was sent meanwhile: wait out the rest of its period
      return;
    }
    if (this.#onQuiet()) this.#last = performance.now();
    this.#arm(this.#ms); // sent, or no read waits: look again a period later
  };
}
