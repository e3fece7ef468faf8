// persistSession: wires a live Session to a store so that every committed event enters the
// store's buffer in the same synchronous frame as the append. The caller decides when to
// flush (the loop flushes at every turn/end and on dispose).
import type { Session } from "../session/index.js";
import type { SessionStore } from "./types.js";

/** Buffers every future append of `session` into `store`; returns the disposer. */
export function persistSession(session: Session, store: SessionStore): () => void {
  return session.observe((event) => store.append(session.id, [event]));
}
