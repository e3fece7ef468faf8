import * as nodeFs from "node:fs/promises";
import { Session, type SessionEvent, type SessionHeader } from "../session/index.js";
import { type LoadedSession, type LoadOptions, type SessionPersistence, type SessionStore, type SessionSummary } from "./types.js";
/** The file-system calls the store makes; injectable so tests can fail a write on purpose. */
export type StoreFileSystem = Pick<typeof nodeFs, "open" | "readFile" | "link" | "unlink" | "rename" | "mkdir" | "readdir">;
export interface JsonlStoreOptions {
    /** Directory holding the session files; defaults to `$KEELSON_HOME/sessions`. */
    readonly root?: string;
    readonly fs?: StoreFileSystem;
}
export declare class JsonlSessionStore implements SessionStore {
    #private;
    readonly root: string;
    constructor(options?: JsonlStoreOptions);
    /** The file that holds session `id`. */
    fileOf(id: string): string;
    create(header: SessionHeader, seed?: readonly SessionEvent[]): Promise<void>;
    append(sessionId: string, events: readonly SessionEvent[]): void;
    flush(sessionId?: string): Promise<void>;
    attach(session: Session): SessionPersistence;
    load(sessionId: string, options?: LoadOptions): Promise<LoadedSession>;
    list(): Promise<SessionSummary[]>;
    release(sessionId: string): Promise<void>;
    close(): Promise<void>;
}
