import type * as fsp from "node:fs/promises";
type Fs = Pick<typeof fsp, "open" | "readFile" | "unlink" | "link" | "rename">;
/** Takes the lock at `path` for this process, or throws `StoreError('locked')`. */
export declare function acquireLock(fs: Fs, path: string, sessionId: string): Promise<void>;
export declare function releaseLock(fs: Fs, path: string): Promise<void>;
export {};
