// LoadCache: the JSONL store's memory of the sessions it last read or wrote, so that loading the
// same session again (a server resuming a stored session every turn) costs a `stat`, not a read,
// a parse and a validation. An entry is a validated Session, how many of its events were the
// file's, and the file's identity (dev, ino, size, mtime) when they were; it is used only while
// the file still has that identity. Bounded: least recently used entries are dropped first.
import type { Hash } from "node:crypto";
import type { Stats } from "node:fs";
import type { Session } from "../session/index.js";
import type { FileLayout } from "./file-layout.js";

/** What identifies the content of a log file: a change by any writer changes one of these. */
export interface FileIdentity {
  readonly dev: number;
  readonly ino: number;
  readonly size: number;
  readonly mtimeMs: number;
}

export interface CachedLoad {
  /** Holds the file's events as its first `length` events (later appends to it are not the file's). */
  readonly session: Session;
  readonly length: number;
  readonly identity: FileIdentity;
  /** Bytes of a torn final line the file had when it was read. */
  readonly droppedBytes: number;
  /** Where the file's own events sit (file-layout.ts). */
  readonly layout: FileLayout;
  /** SHA-256 state over the file's committed bytes (identity size minus a torn tail). */
  readonly hash: Hash;
  /** Hex SHA-256 of shorter prefixes, by byte length, computed for forks by reference. */
  readonly prefixHashes: Map<number, string>;
}

/** Default bound of `JsonlStoreOptions.cacheSessions`. */
export const DEFAULT_CACHE_SESSIONS = 64;

export const identityOf = (info: Pick<Stats, "dev" | "ino" | "size" | "mtimeMs">): FileIdentity => ({
  dev: info.dev,
  ino: info.ino,
  size: info.size,
  mtimeMs: info.mtimeMs,
});

export const sameIdentity = (a: FileIdentity, b: FileIdentity): boolean =>
  a.dev === b.dev && a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs;

/** An LRU map from session id to its cached load; capacity 0 keeps nothing. */
export class LoadCache {
  readonly #capacity: number;
  readonly #entries = new Map<string, CachedLoad>();

  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  get(id: string): CachedLoad | undefined {
    const entry = this.#entries.get(id);
    if (entry !== undefined) {
      this.#entries.delete(id);
      this.#entries.set(id, entry);
    }
    return entry;
  }

  set(id: string, entry: CachedLoad): void {
    if (this.#capacity <= 0) return;
    this.#entries.delete(id);
    this.#entries.set(id, entry);
    while (this.#entries.size > this.#capacity) {
      const oldest = this.#entries.keys().next().value as string;
      this.#entries.delete(oldest);
    }
  }

  delete(id: string): void {
    this.#entries.delete(id);
  }
}
