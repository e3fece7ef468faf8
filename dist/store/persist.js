import { StoreError } from "./types.js";
/** The generic `SessionStore.attach`: any store that implements `append` and `flush` can use it. */
export function persistSession(session, store) {
    let failure;
    const dispose = session.observe((event) => {
        if (failure !== undefined)
            return;
        try {
            store.append(session.id, [event]);
        }
        catch (error) {
            failure = error;
        }
    });
    return {
        async flush() {
            if (failure !== undefined) {
                throw new StoreError("write-failed", `session ${session.id}: the store refused an append, so the log on disk is behind the session: ${String(failure)}`, { cause: failure });
            }
            await store.flush(session.id);
        },
        dispose,
    };
}
//# sourceMappingURL=persist.js.map