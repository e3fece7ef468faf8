// forwardCommits: forwards every event a live Session commits to a store's `append`, so it is in
// the store's buffer in the same synchronous frame as the commit. It writes nothing itself:
// durability is the returned `flush()`, and the caller decides when (the loop, per its
// `durability` option: by default before each tool that is not read-only, after every step, at
// turn end and on dispose; with `turn`, at turn end and on dispose only).
//
// Session observers are contained (a throw cannot undo a commit), so a refused buffer append
// would otherwise vanish into a warning. It is remembered instead, and `flush()` reports it:
// a flush never claims durability for a log the store did not take whole.
import type { Session } from "../session/index.js";
import { type SessionPersistence, type SessionStore, StoreError } from "./types.js";

/** The generic `SessionStore.attach`: any store that implements `append` and `flush` can use it. Formerly `persistSession`. */
export function forwardCommits(session: Session, store: Pick<SessionStore, "append" | "flush">): SessionPersistence {
  let failure: unknown;
  const dispose = session.observe((event) => {
    if (failure !== undefined) return;
    try {
      store.append(session.id, [event]);
    } catch (error) {
      failure = error;
    }
  });
  return {
    async flush() {
      if (failure !== undefined) {
        throw new StoreError(
          "write-failed",
          `session ${session.id}: the store refused an append, so the log on disk is behind the session: ${String(failure)}`,
          { cause: failure },
        );
      }
      await store.flush(session.id);
    },
    dispose,
  };
}
