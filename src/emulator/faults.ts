// Fault injection: a FIFO of faults for the next requests (`faults.next('http-429')`) and, when
// the FIFO is empty, faults drawn at a seeded rate (mulberry32, so a run is reproducible), which
// `maxConsecutive` can make transient: the rate never faults more requests in a row than that, so a
// client whose retry budget is larger always gets through. HTTP faults answer before the model
// runs; stream faults strike after `afterEvents` SSE events.
import { WireError } from "./types.js";

export type FaultKind =
  | "http-429"
  | "http-500"
  | "http-503"
  | "http-529"
  /** Anthropic `event: error` (overloaded_error) / OpenAI `data: {"error":…}` mid-stream. */
  | "stream-error"
  /** The socket is destroyed partway through an event. */
  | "reset"
  /** Headers (and `afterEvents` events) sent, then silence until the client leaves or `releaseStalls()`. */
  | "stall"
  /** A garbage event the SSE JSON parser rejects. */
  | "malformed-sse"
  /** OpenAI: no `data: [DONE]`; Anthropic: no `message_stop`. */
  | "missing-done";

export const FAULT_KINDS: readonly FaultKind[] = [
  "http-429",
  "http-500",
  "http-503",
  "http-529",
  "stream-error",
  "reset",
  "stall",
  "malformed-sse",
  "missing-done",
];

export interface Fault {
  readonly kind: FaultKind;
  /** `http-429` only: the `retry-after` header, in seconds. */
  readonly retryAfterSeconds?: number;
  /** Stream faults: events sent before the fault strikes (clamped to leave the stream unfinished). */
  readonly afterEvents?: number;
}

export interface FaultOptions {
  /** Probability per request of a seeded fault when the FIFO is empty (default 0). */
  readonly rate?: number;
  readonly seed?: number;
  /** Kinds the seeded rate draws from (default: all). */
  readonly kinds?: readonly FaultKind[];
  /** Default `retry-after` for `http-429` (default 1 s). */
  readonly retryAfterSeconds?: number;
  /**
   * The longest run of consecutive faulted requests the seeded rate makes (a positive integer;
   * default unbounded). Queued faults are always served and count towards the run: after
   * `next()` queued this many in a row, the rate leaves the next request alone.
   */
  readonly maxConsecutive?: number;
}

const DEFAULT_AFTER: { readonly [K in FaultKind]?: number } = {
  "stream-error": 3,
  reset: 3,
  stall: 1,
  "malformed-sse": 3,
};

/** A small seeded PRNG (uniform in [0, 1)). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

export class FaultPlan {
  readonly #queue: Fault[] = [];
  readonly #rate: number;
  readonly #kinds: readonly FaultKind[];
  readonly #random: () => number;
  readonly #retryAfterSeconds: number;
  readonly #maxConsecutive: number;
  /** Requests faulted in a row so far (queued or drawn); 0 after a request served clean. */
  #run = 0;

  constructor(options: FaultOptions = {}) {
    this.#rate = options.rate ?? 0;
    this.#kinds = options.kinds ?? FAULT_KINDS;
    this.#random = mulberry32(options.seed ?? 1);
    this.#retryAfterSeconds = options.retryAfterSeconds ?? 1;
    const max = options.maxConsecutive;
    if (max !== undefined && !(Number.isSafeInteger(max) && max >= 1))
      throw new RangeError(`FaultPlan: maxConsecutive must be a positive integer, got ${String(max)}`);
    this.#maxConsecutive = max ?? Number.POSITIVE_INFINITY;
    if (this.#kinds.length === 0 && this.#rate > 0)
      throw new RangeError("FaultPlan: a positive rate needs at least one kind");
  }

  /** Queues faults for the next requests, one per request, in order. */
  next(...faults: (FaultKind | Fault)[]): this {
    for (const fault of faults) this.#queue.push(typeof fault === "string" ? { kind: fault } : fault);
    return this;
  }

  get pending(): number {
    return this.#queue.length;
  }

  clear(): void {
    this.#queue.length = 0;
  }

  /** The fault for the request now arriving, if any (FIFO first, then the seeded rate). */
  take(): Fault | undefined {
    const fault = this.#queue.shift() ?? this.#drawn();
    this.#run = fault === undefined ? 0 : this.#run + 1;
    return fault;
  }

  /** The seeded rate's fault for this request: none once the run has reached `maxConsecutive`. */
  #drawn(): Fault | undefined {
    if (this.#rate <= 0 || this.#run >= this.#maxConsecutive || this.#random() >= this.#rate) return undefined;
    return { kind: this.#kinds[Math.floor(this.#random() * this.#kinds.length)]! };
  }

  /** Events to send before a stream fault, clamped so at least one event is withheld. */
  afterEvents(fault: Fault, eventCount: number): number {
    return Math.max(0, Math.min(fault.afterEvents ?? DEFAULT_AFTER[fault.kind] ?? 0, eventCount - 1));
  }

  /** The HTTP error an `http-*` fault answers with; undefined for stream faults. */
  httpError(fault: Fault): WireError | undefined {
    switch (fault.kind) {
      case "http-429": {
        const seconds = fault.retryAfterSeconds ?? this.#retryAfterSeconds;
        return new WireError("rate-limit", "Rate limit exceeded (emulator fault injection).", {
          headers: { "retry-after": String(seconds) },
        });
      }
      case "http-500":
        return new WireError("api", "Internal server error");
      case "http-503":
        return new WireError("unavailable", "Service Unavailable");
      case "http-529":
        return new WireError("overloaded", "Overloaded");
      default:
        return undefined;
    }
  }
}
