// Plugins: a plugin is `(host) => dispose | void`. The host registers listeners on one bus and
// remembers every disposer; unloading runs every cleanup in reverse order of registration — the
// plugin's own returned dispose first (it was added last), then its `onDispose` cleanups and
// listener removals, newest first.
import type { HookBus } from "./bus.js";
import type { Dispose, HookMap, Listener } from "./types.js";

export interface PluginHost<E extends HookMap> {
  on<K extends keyof E & string>(name: K, listener: Listener<E[K]>): Dispose;
  /** Registers any other cleanup to run when the plugin is unloaded. */
  onDispose(fn: Dispose): void;
}

export type Plugin<E extends HookMap, H = PluginHost<E>> = (host: H) => Dispose | undefined;

/**
 * Loads `plugin` against `bus` (extra host fields, e.g. the agent, come from `extend`), and
 * returns the unloader. Unloading is idempotent; cleanups run in reverse order, and one failing
 * cleanup does not stop the others (the first failure is rethrown after all ran).
 */
export function loadPlugin<E extends HookMap, X extends object = object>(
  bus: HookBus<E>,
  plugin: Plugin<E, PluginHost<E> & X>,
  extend?: X,
): Dispose {
  const cleanups: Dispose[] = [];
  const host = {
    ...(extend ?? ({} as X)),
    on: <K extends keyof E & string>(name: K, listener: Listener<E[K]>): Dispose => {
      const dispose = bus.on(name, listener);
      cleanups.push(dispose);
      return dispose;
    },
    onDispose: (fn: Dispose) => {
      cleanups.push(fn);
    },
  } as PluginHost<E> & X;
  try {
    const own = plugin(host);
    if (typeof own === "function") cleanups.push(own);
  } catch (error) {
    try {
      runAll(cleanups);
    } catch {
      // the load failure is the one to report; a failing rollback must not hide it
    }
    throw error;
  }
  let done = false;
  return () => {
    if (done) return;
    done = true;
    runAll(cleanups);
  };
}

function runAll(cleanups: Dispose[]): void {
  let first: unknown;
  let failed = false;
  for (const fn of cleanups.reverse()) {
    try {
      fn();
    } catch (error) {
      if (!failed) first = error;
      failed = true;
    }
  }
  if (failed) throw first;
}
