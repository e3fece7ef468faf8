/**
 * Loads `plugin` against `bus` (extra host fields, e.g. the agent, come from `extend`), and
 * returns the unloader. Unloading is idempotent; cleanups run in reverse order, and one failing
 * cleanup does not stop the others (the first failure is rethrown after all ran).
 */
export function loadPlugin(bus, plugin, extend) {
    const cleanups = [];
    const host = {
        ...(extend ?? {}),
        on: (name, listener) => {
            const dispose = bus.on(name, listener);
            cleanups.push(dispose);
            return dispose;
        },
        onDispose: (fn) => {
            cleanups.push(fn);
        },
    };
    try {
        const own = plugin(host);
        if (typeof own === "function")
            cleanups.push(own);
    }
    catch (error) {
        try {
            runAll(cleanups);
        }
        catch {
            // the load failure is the one to report; a failing rollback must not hide it
        }
        throw error;
    }
    let done = false;
    return () => {
        if (done)
            return;
        done = true;
        runAll(cleanups);
    };
}
function runAll(cleanups) {
    let first;
    let failed = false;
    for (const fn of cleanups.reverse()) {
        try {
            fn();
        }
        catch (error) {
            if (!failed)
                first = error;
            failed = true;
        }
    }
    if (failed)
        throw first;
}
//# sourceMappingURL=plugin.js.map