import { type AnyHook, type Dispose, type HookErrorReporter, type HookMap, type Listener, type NamesOfMode } from "./types.js";
export interface HookBusOptions<E extends HookMap> {
    readonly parent?: HookBus<E>;
    /** Receives contained failures of emit listeners; defaults to a process warning. */
    readonly report?: HookErrorReporter;
}
export declare class HookBus<E extends HookMap> {
    #private;
    readonly parent: HookBus<E> | undefined;
    constructor(options?: HookBusOptions<E>);
    /** Registers a listener; returns its disposer (idempotent). */
    on<K extends keyof E & string>(name: K, listener: Listener<E[K]>): Dispose;
    /** Number of listeners a dispatch of `name` would run (parents included). */
    count(name: keyof E & string): number;
    /**
     * Notifies every listener. Never throws and never waits: a sync throw or an async rejection
     * of one listener is reported, and the others still run.
     */
    emit<K extends NamesOfMode<E, "emit">>(name: K, ...args: E[K]["args"]): void;
    /** Awaits every listener in order; the first throw propagates (later listeners do not run). */
    serial<K extends NamesOfMode<E, "serial">>(name: K, ...args: E[K]["args"]): Promise<void>;
    /**
     * Runs the listeners as middleware around `innermost`: listener 0 gets `next` that runs
     * listener 1, …, and the last listener's `next` runs `innermost`. Returns the outermost result.
     * A listener may call `next` at most once; not calling it short-circuits the rest.
     */
    waterfall<K extends NamesOfMode<E, "waterfall">>(name: K, args: E[K]["args"], innermost: () => E[K] extends {
        result: infer R;
    } ? R | Promise<R> : never): Promise<E[K] extends {
        result: infer R;
    } ? R : never>;
    /** Reports a failure through this bus's reporter (for owners that contain errors themselves). */
    report(error: unknown, hook: string): void;
}
/** The type of a hook declaration, for helpers that accept any. */
export type { AnyHook };
