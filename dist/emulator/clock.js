/** 2023-11-14T22:13:20Z: a fixed, realistic epoch so OpenAI `created` fields look real and never vary. */
export const DEFAULT_EPOCH_MS = 1_700_000_000_000;
export class SimulatedClock {
    #now;
    constructor(startMs = DEFAULT_EPOCH_MS) {
        this.#now = startMs;
    }
    now() {
        return this.#now;
    }
    /** Moves time forward; a negative step is a programming error. */
    advance(ms) {
        if (!(ms >= 0))
            throw new RangeError(`SimulatedClock.advance needs a non-negative step, got ${ms}`);
        this.#now += ms;
        return this.#now;
    }
}
//# sourceMappingURL=clock.js.map