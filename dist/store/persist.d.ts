import type { Session } from "../session/index.js";
import { type SessionPersistence, type SessionStore } from "./types.js";
/** The generic `SessionStore.attach`: any store that implements `append` and `flush` can use it. */
export declare function persistSession(session: Session, store: Pick<SessionStore, "append" | "flush">): SessionPersistence;
