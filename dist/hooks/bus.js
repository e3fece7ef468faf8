// HookBus: Keelson's typed hook bus — emit / serial / waterfall over one event map.
//
// Scopes: a bus may have a parent. Dispatching on a bus runs the parent's listeners first
// (outermost, for a waterfall), then its own, each group in registration order. A global bus
// is the parent of every agent's bus: global listeners hear every agent, an agent's listeners
// hear only that agent. The listener list is snapshotted at dispatch, so a listener that
// registers or disposes others changes only later dispatches.
import { HookError, } from "./types.js";
const defaultReporter = (error, hook) => {
    process.emitWarning(`listener of ${hook} failed: ${error instanceof Error ? error.message : String(error)}`, "KeelsonHookWarning");
};
export class HookBus {
    parent;
    #own = new Map();
    #report;
    constructor(options = {}) {
        this.parent = options.parent;
        this.#report = options.report ?? defaultReporter;
    }
    /** Registers a listener; returns its disposer (idempotent). */
    on(name, listener) {
        const entry = { fn: listener };
        this.#own.set(name, [...(this.#own.get(name) ?? []), entry]);
        return () => {
            const current = this.#own.get(name);
            if (current?.includes(entry))
                this.#own.set(name, current.filter((e) => e !== entry));
        };
    }
    /** Number of listeners a dispatch of `name` would run (parents included). */
    count(name) {
        return this.#listeners(name).length;
    }
    /**
     * Notifies every listener. Never throws and never waits: a sync throw or an async rejection
     * of one listener is reported, and the others still run.
     */
    emit(name, ...args) {
        for (const listener of this.#listeners(name)) {
            try {
                const out = listener(...args);
                if (out instanceof Promise)
                    out.catch((error) => this.#safeReport(error, name));
            }
            catch (error) {
                this.#safeReport(error, name);
            }
        }
    }
    /** Awaits every listener in order; the first throw propagates (later listeners do not run). */
    async serial(name, ...args) {
        for (const listener of this.#listeners(name))
            await listener(...args);
    }
    /**
     * Runs the listeners as middleware around `innermost`: listener 0 gets `next` that runs
     * listener 1, …, and the last listener's `next` runs `innermost`. Returns the outermost result.
     * A listener may call `next` at most once; not calling it short-circuits the rest.
     */
    async waterfall(name, args, innermost) {
        const listeners = this.#listeners(name);
        const run = async (i) => {
            if (i === listeners.length)
                return (await innermost());
            let called = false;
            const next = () => {
                if (called)
                    return Promise.reject(new HookError("next-called-twice", `a listener of ${name} called next() twice`));
                called = true;
                return run(i + 1);
            };
            return (await listeners[i](...args, next));
        };
        return run(0);
    }
    /** Reports a failure through this bus's reporter (for owners that contain errors themselves). */
    report(error, hook) {
        this.#safeReport(error, hook);
    }
    #listeners(name) {
        const own = (this.#own.get(name) ?? []).map((e) => e.fn);
        const inherited = this.parent === undefined ? [] : this.parent.#listeners(name);
        return inherited.length === 0 ? own : own.length === 0 ? inherited : [...inherited, ...own];
    }
    #safeReport(error, hook) {
        try {
            this.#report(error, hook);
        }
        catch (reporterError) {
            defaultReporter(reporterError, hook);
        }
    }
}
//# sourceMappingURL=bus.js.map