// HookBus: Keelson's typed hook bus — emit / serial / waterfall over one event map.
//
// Every dispatch carries one payload object, frozen (shallowly) by the bus before any listener
// sees it: listeners share it, so none may change what the next one reads.
//
// Scopes: a bus may have a parent. Dispatching on a bus runs the parent's listeners first
// (outermost, for a waterfall), then its own, each group in registration order. A global bus
// is the parent of every agent's bus: global listeners hear every agent, an agent's listeners
// hear only that agent. The listener list is snapshotted at dispatch, so a listener that
// registers or disposes others changes only later dispatches.
import { errorMessage } from "../errors/index.js";
import {
  type AnyHook,
  type Dispose,
  HookError,
  type HookErrorReporter,
  type HookMap,
  type Listener,
  type NamesOfMode,
  type PayloadOf,
  type ResultOf,
} from "./types.js";
import { isThenable } from "./thenable.js";

type AnyListener = (payload: object, next?: () => Promise<unknown>) => unknown;
/** One registration: its own identity, so the same function registered twice disposes separately. */
interface Entry {
  readonly fn: AnyListener;
}

const NONE: readonly AnyListener[] = Object.freeze([]);
/**
 * Bumped by every registration and disposal on any bus: a cached listener list resolved at the
 * current generation is current (no bus's lists, its parents' included, changed since).
 */
let generation = 0;
/** What `serial` returns when no listener runs: no async function frame per dispatch. */
const SETTLED: Promise<void> = Promise.resolve();

/**
 * Runs the listeners in order. A listener that returns no promise is followed at once by the next
 * (nothing to wait for); from the first promise on, the rest run after it settles. So a dispatch
 * whose listeners all return synchronously makes no promise and no async frame: `serial` runs
 * twice per step (`agent/tool-set`, `agent/pre-step`).
 */
function runSerial(listeners: readonly AnyListener[], payload: object): Promise<void> {
  for (let i = 0; i < listeners.length; i++) {
    let out: unknown;
    try {
      out = listeners[i]!(payload);
    } catch (error) {
      return Promise.reject(error);
    }
    if (isThenable(out)) return continueSerial(out, listeners, i + 1, payload);
  }
  return SETTLED;
}

async function continueSerial(
  pending: PromiseLike<unknown>,
  listeners: readonly AnyListener[],
  from: number,
  payload: object,
): Promise<void> {
  await pending;
  for (let i = from; i < listeners.length; i++) await listeners[i]!(payload);
}

const defaultReporter: HookErrorReporter = (error, hook) => {
  process.emitWarning(`listener of ${hook} failed: ${errorMessage(error)}`, "KeelsonHookWarning");
};

export interface HookBusOptions<E extends HookMap> {
  readonly parent?: HookBus<E>;
  /** Receives contained failures of emit listeners; defaults to a process warning. */
  readonly report?: HookErrorReporter;
}

export class HookBus<E extends HookMap> {
  readonly parent: HookBus<E> | undefined;
  readonly #own = new Map<string, Entry[]>();
  /**
   * The resolved listener list per hook, with what it was resolved from: registration replaces a
   * hook's entry array (never mutates it), so an unchanged own array and an unchanged inherited
   * list mean the cached list is current. Dispatch runs on every step and every chunk: without
   * this, each one built two or three fresh arrays.
   */
  readonly #resolved = new Map<
    string,
    { generation: number; own: Entry[] | undefined; inherited: readonly AnyListener[]; list: readonly AnyListener[] }
  >();
  readonly #report: HookErrorReporter;

  constructor(options: HookBusOptions<E> = {}) {
    this.parent = options.parent;
    this.#report = options.report ?? defaultReporter;
  }

  /** Registers a listener; returns its disposer (idempotent). */
  on<K extends keyof E & string>(name: K, listener: Listener<E[K]>): Dispose {
    const entry: Entry = { fn: listener as unknown as AnyListener };
    this.#own.set(name, [...(this.#own.get(name) ?? []), entry]);
    generation++;
    return () => {
      const current = this.#own.get(name);
      if (current?.includes(entry)) {
        this.#own.set(
          name,
          current.filter((e) => e !== entry),
        );
        generation++;
      }
    };
  }

  /** Number of listeners a dispatch of `name` would run (parents included). */
  count(name: keyof E & string): number {
    return this.#listeners(name).length;
  }

  /**
   * Notifies every listener. Never throws and never waits: a sync throw or an async rejection
   * of one listener is reported, and the others still run.
   */
  emit<K extends NamesOfMode<E, "emit">>(name: K, payload: PayloadOf<E[K]>): void {
    Object.freeze(payload);
    for (const listener of this.#listeners(name)) {
      try {
        const out = listener(payload);
        if (out instanceof Promise) out.catch((error: unknown) => this.#safeReport(error, name));
      } catch (error) {
        this.#safeReport(error, name);
      }
    }
  }

  /** Awaits every listener in order; the first throw propagates (later listeners do not run). */
  serial<K extends NamesOfMode<E, "serial">>(name: K, payload: PayloadOf<E[K]>): Promise<void> {
    Object.freeze(payload);
    const listeners = this.#listeners(name);
    return listeners.length === 0 ? SETTLED : runSerial(listeners, payload);
  }

  /**
   * Runs the listeners as middleware around `innermost`: listener 0 gets `(payload, next)` where
   * `next()` runs listener 1 over the same payload, …, and the last listener's `next` runs
   * `innermost`. Returns the outermost result. A listener may call `next` at most once; not
   * calling it short-circuits the rest.
   */
  waterfall<K extends NamesOfMode<E, "waterfall">>(
    name: K,
    payload: PayloadOf<E[K]>,
    innermost: () => ResultOf<E[K]> | Promise<ResultOf<E[K]>>,
  ): Promise<ResultOf<E[K]>> {
    type R = ResultOf<E[K]>;
    // No async frame per level: a listener (or `innermost`) that answers synchronously costs no
    // promise but the one this returns; `next()` always hands its listener a promise.
    const run = (i: number): R | Promise<R> => {
      if (i === listeners.length) return innermost();
      let called = false;
      const next = (): Promise<R> => {
        if (called)
          return Promise.reject(new HookError("next-called-twice", `a listener of ${name} called next() twice`));
        called = true;
        try {
          return Promise.resolve(run(i + 1));
        } catch (error) {
          return Promise.reject(error);
        }
      };
      return listeners[i]!(payload, next) as R | Promise<R>;
    };
    let listeners: readonly AnyListener[] = NONE;
    try {
      Object.freeze(payload);
      listeners = this.#listeners(name);
      return Promise.resolve(run(0));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** Reports a failure through this bus's reporter (for owners that contain errors themselves). */
  report(error: unknown, hook: string): void {
    this.#safeReport(error, hook);
  }

  #listeners(name: string): readonly AnyListener[] {
    const cached = this.#resolved.get(name);
    // Nothing registered or disposed on any bus since: one lookup, no walk up the parents.
    if (cached !== undefined && cached.generation === generation) return cached.list;
    const own = this.#own.get(name);
    const inherited = this.parent === undefined ? NONE : this.parent.#listeners(name);
    if (cached !== undefined && cached.own === own && cached.inherited === inherited) {
      cached.generation = generation;
      return cached.list;
    }
    const mine = own === undefined ? NONE : own.map((e) => e.fn);
    const list = Object.freeze(inherited.length === 0 ? mine : mine.length === 0 ? inherited : [...inherited, ...mine]);
    this.#resolved.set(name, { generation, own, inherited, list });
    return list;
  }

  #safeReport(error: unknown, hook: string): void {
    try {
      this.#report(error, hook);
    } catch (reporterError) {
      defaultReporter(reporterError, hook);
    }
  }
}

/** The type of a hook declaration, for helpers that accept any. */
export type { AnyHook };
