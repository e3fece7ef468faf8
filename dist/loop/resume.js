// resumeAgent and forkAgent: new loop instances over stored sessions. Each recomposes its
// session prefix and logs a `resume` header snapshot on its first request, so any drift since
// the previous instance is attributable by diffing consecutive snapshots.
import { forkSession } from "../session/index.js";
import { agentOver } from "./agent.js";
/** Loads `sessionId` writable (crash-repairing it durably) and returns an agent over it. */
export async function resumeAgent(store, sessionId, options) {
    const { session } = await store.load(sessionId, options.clock === undefined ? {} : { session: { clock: options.clock } });
    try {
        return agentOver({ ...options, store }, { session, storeOpen: true });
    }
    catch (error) {
        await store.release(sessionId);
        throw error;
    }
}
/** Creates a child session of `sessionId` at a `turn/end` boundary, stores it, and returns an agent over it. */
export async function forkAgent(store, sessionId, options) {
    const { session: parent } = await store.load(sessionId, { readOnly: true });
    const child = forkSession(parent, {
        ...(options.atSeq === undefined ? {} : { atSeq: options.atSeq }),
        ...(options.sessionId === undefined ? {} : { id: options.sessionId }),
        ...(options.clock === undefined ? {} : { clock: options.clock }),
    });
    await store.create(child.header, child.events);
    try {
        return agentOver({ ...options, store }, { session: child, storeOpen: true });
    }
    catch (error) {
        await store.release(child.id);
        throw error;
    }
}
//# sourceMappingURL=resume.js.map