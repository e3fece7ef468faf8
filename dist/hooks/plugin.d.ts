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
export declare function loadPlugin<E extends HookMap, X extends object = object>(bus: HookBus<E>, plugin: Plugin<E, PluginHost<E> & X>, extend?: X): Dispose;
