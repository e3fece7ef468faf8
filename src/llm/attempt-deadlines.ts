// The three deadlines of one provider attempt, shared by the adapters: connecting (until the
// request is on a connected socket), the first event (from sending the request until the first
// stream event: connect, response headers and the model's first output all count), and stalls
// (silence between two events, the consumer's own time excluded). When one passes, `onExpire`
// aborts the HTTP request and `error()` is the retryable ProviderError to throw — `connection`
// for connect, `stalled` for the others — naming the base URL and the deadline that passed.
import { ConnectionWatch, originOf } from "./connection-watch.js";
import { ProviderError } from "./types.js";

export interface DeadlineOptions {
  /** Named in the errors, e.g. `https://api.anthropic.com`. */
  readonly baseURL: string;
  /**
   * Until the request is on a connected socket. Enforced only where the fetch in use reports
   * its connection (Node's built-in fetch does; see connection-watch.ts); Node's fetch also
   * gives up connecting by itself after 10 s.
   */
  readonly connectTimeoutMs: number;
  /** From sending the request until the first stream event. */
  readonly firstByteTimeoutMs: number;
  /** Between two stream events after the first. */
  readonly stallTimeoutMs: number;
}

export const DEFAULT_DEADLINES = {
  connectTimeoutMs: 10_000,
  firstByteTimeoutMs: 60_000,
  stallTimeoutMs: 60_000,
} as const;

export type DeadlinePhase = "connect" | "first-byte" | "stall";

export class AttemptDeadlines {
  readonly #options: DeadlineOptions;
  readonly #onExpire: () => void;
  readonly #timers = new Map<DeadlinePhase, ReturnType<typeof setTimeout>>();
  #watch: ConnectionWatch | undefined;
  #received = false;
  #expired: DeadlinePhase | undefined;

  constructor(options: DeadlineOptions, onExpire: () => void) {
    this.#options = options;
    this.#onExpire = onExpire;
  }

  /** The deadline that passed, if one did. */
  get expired(): DeadlinePhase | undefined {
    return this.#expired;
  }

  /** Arms the connect and first-event deadlines; call right before the SDK sends the request. */
  start(): void {
    const origin = originOf(this.#options.baseURL);
    if (origin !== undefined) {
      const watch = new ConnectionWatch(origin, () => this.#clear("connect"));
      this.#watch = watch;
      // Only a fetch that reports its steps can be caught still connecting.
      this.#arm("connect", this.#options.connectTimeoutMs, () => watch.observed && !watch.connected);
    }
    this.#arm("first-byte", this.#options.firstByteTimeoutMs);
  }

  /** The response headers arrived: the connection is up. */
  responded(): void {
    this.#clear("connect");
    this.#unwatch();
  }

  /** A stream event arrived: the first-event deadline is met; the consumer's time is not silence. */
  received(): void {
    this.responded();
    this.#clear("first-byte");
    this.#clear("stall");
    this.#received = true;
  }

  /** Waiting for the next event: arms the stall deadline (the first event has its own). */
  waiting(): void {
    if (this.#received) this.#arm("stall", this.#options.stallTimeoutMs);
  }

  /** Clears every deadline (the attempt ended, however it ended). */
  stop(): void {
    for (const phase of ["connect", "first-byte", "stall"] as const) this.#clear(phase);
    this.#unwatch();
  }

  /** The retryable error for the deadline that passed. */
  error(cause?: unknown): ProviderError {
    const { baseURL } = this.#options;
    const options = { retryable: true, ...(cause === undefined ? {} : { cause }) };
    switch (this.#expired) {
      case "connect":
        return new ProviderError(
          "connection",
          `could not connect to ${baseURL} within ${this.#options.connectTimeoutMs} ms (connect timeout); the attempt was aborted`,
          options,
        );
      case "first-byte":
        return new ProviderError(
          "stalled",
          `no response from ${baseURL} within ${this.#options.firstByteTimeoutMs} ms of sending the request (first-byte timeout); the attempt was aborted`,
          options,
        );
      default:
        return new ProviderError(
          "stalled",
          `${baseURL} sent nothing for ${this.#options.stallTimeoutMs} ms mid-stream (stall timeout); the attempt was aborted`,
          options,
        );
    }
  }

  #arm(phase: DeadlinePhase, ms: number, applies: () => boolean = () => true): void {
    this.#clear(phase);
    const timer = setTimeout(() => {
      this.#timers.delete(phase);
      if (this.#expired !== undefined || !applies()) return;
      this.#expired = phase;
      this.stop();
      this.#onExpire();
    }, ms);
    this.#timers.set(phase, timer);
  }

  #clear(phase: DeadlinePhase): void {
    clearTimeout(this.#timers.get(phase));
    this.#timers.delete(phase);
  }

  #unwatch(): void {
    this.#watch?.close();
    this.#watch = undefined;
  }
}
