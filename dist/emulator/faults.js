// Fault injection: a FIFO of faults for the next requests (`faults.next('http-429')`) and, when
// the FIFO is empty, faults drawn at a seeded rate (mulberry32, so a run is reproducible). HTTP
// faults answer before the model runs; stream faults strike after `afterEvents` SSE events.
import { WireError } from "./types.js";
export const FAULT_KINDS = [
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
const DEFAULT_AFTER = {
    "stream-error": 3,
    reset: 3,
    stall: 1,
    "malformed-sse": 3,
};
/** A small seeded PRNG (uniform in [0, 1)). */
export function mulberry32(seed) {
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
    #queue = [];
    #rate;
    #kinds;
    #random;
    #retryAfterSeconds;
    constructor(options = {}) {
        this.#rate = options.rate ?? 0;
        this.#kinds = options.kinds ?? FAULT_KINDS;
        this.#random = mulberry32(options.seed ?? 1);
        this.#retryAfterSeconds = options.retryAfterSeconds ?? 1;
        if (this.#kinds.length === 0 && this.#rate > 0)
            throw new RangeError("FaultPlan: a positive rate needs at least one kind");
    }
    /** Queues faults for the next requests, one per request, in order. */
    next(...faults) {
        for (const fault of faults)
            this.#queue.push(typeof fault === "string" ? { kind: fault } : fault);
        return this;
    }
    get pending() {
        return this.#queue.length;
    }
    clear() {
        this.#queue.length = 0;
    }
    /** The fault for the request now arriving, if any (FIFO first, then the seeded rate). */
    take() {
        const queued = this.#queue.shift();
        if (queued !== undefined)
            return queued;
        if (this.#rate <= 0 || this.#random() >= this.#rate)
            return undefined;
        return { kind: this.#kinds[Math.floor(this.#random() * this.#kinds.length)] };
    }
    /** Events to send before a stream fault, clamped so at least one event is withheld. */
    afterEvents(fault, eventCount) {
        return Math.max(0, Math.min(fault.afterEvents ?? DEFAULT_AFTER[fault.kind] ?? 0, eventCount - 1));
    }
    /** The HTTP error an `http-*` fault answers with; undefined for stream faults. */
    httpError(fault) {
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
//# sourceMappingURL=faults.js.map