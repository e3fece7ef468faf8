import { KeelsonError } from "../errors/index.js";
/** A notification: listeners run, their failures (sync or async) are contained and reported. */
export interface EmitHook<A extends readonly unknown[]> {
    readonly mode: "emit";
    readonly args: A;
}
/** Listeners are awaited one after another, in order; a throw propagates to the dispatcher. */
export interface SerialHook<A extends readonly unknown[]> {
    readonly mode: "serial";
    readonly args: A;
}
/**
 * Middleware: each listener gets the args and `next()`; the outermost listener's return is the
 * result; the dispatcher supplies the innermost default. A throw propagates.
 */
export interface WaterfallHook<A extends readonly unknown[], R> {
    readonly mode: "waterfall";
    readonly args: A;
    readonly result: R;
}
export type AnyHook = EmitHook<readonly unknown[]> | SerialHook<readonly unknown[]> | WaterfallHook<readonly unknown[], unknown>;
/** An event map: hook name → declaration. One interface per layer, merged by the loop. */
export type HookMap = {
    readonly [name: string]: AnyHook;
};
export type Next<R> = () => Promise<R>;
/** The listener a hook declaration takes. */
export type Listener<H extends AnyHook> = H extends WaterfallHook<infer A, infer R> ? (...args: [...A, Next<R>]) => R | Promise<R> : H extends EmitHook<infer A> | SerialHook<infer A> ? (...args: A) => void | Promise<void> : never;
export type NamesOfMode<E extends HookMap, M extends AnyHook["mode"]> = {
    [K in keyof E]: E[K]["mode"] extends M ? K : never;
}[keyof E] & string;
export type Dispose = () => void;
/** Misuse of the bus: a waterfall listener that called `next()` twice. */
export declare class HookError extends KeelsonError<"next-called-twice"> {
}
/** Where contained failures go (emit listeners, and anything the owner chooses to report). */
export type HookErrorReporter = (error: unknown, hook: string) => void;
