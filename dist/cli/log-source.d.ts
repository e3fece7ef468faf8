import { Session, type SessionEvent } from "../session/index.js";
import { JsonlSessionStore } from "../store/index.js";
export interface LoadedLog {
    readonly file: string;
    readonly session: Session;
}
/** A raw decode of a log file: the header and every complete event line parsed as JSON. */
export interface RawLog {
    readonly file: string;
    readonly header: unknown;
    readonly events: readonly unknown[];
}
export declare function openStore(): JsonlSessionStore;
/** A target is a file when it names one (has a path separator or ends in `.jsonl`). */
export declare function isFileTarget(target: string): boolean;
/** The file a target refers to: the path itself, or the store's file for an id. */
export declare function fileOfTarget(target: string): string;
/** Reads and decodes a log file read-only (a torn final line is dropped, as the store does). */
export declare function readRawLog(file: string, label?: string): Promise<RawLog>;
/** Loads a session by id or file, read-only, validated like a store load. */
export declare function loadLog(target: string): Promise<LoadedLog>;
/** The events of a loaded log (a convenience for the pure folds). */
export declare function eventsOf(log: LoadedLog): readonly SessionEvent[];
