// The hook bus's vocabulary: how an event map declares each hook's mode and payload, and the
// listener shape each mode takes. Every hook carries one payload object (never positional
// arguments), so a field added to a payload breaks no listener (docs/decisions/0013-hook-payloads.md).
import { KeelsonError } from "../errors/index.js";

/** A notification: listeners run, their failures (sync or async) are contained and reported. */
export interface EmitHook<P extends object> {
  readonly mode: "emit";
  readonly payload: P;
}
/** Listeners are awaited one after another, in order; a throw propagates to the dispatcher. */
export interface SerialHook<P extends object> {
  readonly mode: "serial";
  readonly payload: P;
}
/**
 * Middleware: each listener gets the payload and `next()`; the outermost listener's return is
 * the result; the dispatcher supplies the innermost default. A throw propagates.
 */
export interface WaterfallHook<P extends object, R> {
  readonly mode: "waterfall";
  readonly payload: P;
  readonly result: R;
}

export type AnyHook = EmitHook<object> | SerialHook<object> | WaterfallHook<object, unknown>;

/** An event map: hook name → declaration. One interface per layer, merged by the loop. */
export type HookMap = { readonly [name: string]: AnyHook };

/** The payload a hook declaration carries (what `emit`, `serial` and `waterfall` are given). */
export type PayloadOf<H extends AnyHook> = H["payload"];

/** The result a waterfall declaration produces. */
export type ResultOf<H extends AnyHook> = H extends WaterfallHook<object, infer R> ? R : never;

/**
 * Runs the rest of a waterfall (the later listeners, then the innermost default) over the same
 * payload and resolves to its result. It takes no argument: a listener changes what the hook
 * produces by transforming or replacing the result, never by rewriting the payload.
 */
export type Next<R> = () => Promise<R>;

/** The listener a hook declaration takes: `(payload)`, or `(payload, next)` for a waterfall. */
export type Listener<H extends AnyHook> =
  H extends WaterfallHook<infer P, infer R>
    ? (payload: P, next: Next<R>) => R | Promise<R>
    : H extends EmitHook<infer P> | SerialHook<infer P>
      ? (payload: P) => void | Promise<void>
      : never;

export type NamesOfMode<E extends HookMap, M extends AnyHook["mode"]> = {
  [K in keyof E]: E[K]["mode"] extends M ? K : never;
}[keyof E] &
  string;

export type Dispose = () => void;

/** Misuse of the bus: a waterfall listener that called `next()` twice. */
export class HookError extends KeelsonError<"next-called-twice"> {}

/** Where contained failures go (emit listeners, and anything the owner chooses to report). */
export type HookErrorReporter = (error: unknown, hook: string) => void;
