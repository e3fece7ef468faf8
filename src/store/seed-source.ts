// A stored log as the source of a fork's seed: the JSONL store references a prefix of a log it
// already holds in memory (an open writer, or a load-cache entry whose file is unchanged) when a
// forked session's seed is exactly that prefix, and checks a referencing log's seed against its
// source when it loads it. See seed-reference.ts for the format, docs/decisions/0009 for why.
import type { Hash } from "node:crypto";
import { isSafeSessionId, type Session, type SessionEvent, type SessionMeta } from "../session/index.js";
import { digestOf, type FileLayout, prefixEnd, sha256OfPrefix } from "./file-layout.js";
import type { StoreFileSystem } from "./store-file-system.js";
import type { SeedFrom } from "./seed-reference.js";

/** How many referencing logs deep a load follows seeds (a cycle or deeper chain is refused). */
export const MAX_SEED_DEPTH = 10_000;

export interface SeedSource {
  readonly file: string;
  /** Holds the file's committed events as its first `length` events. */
  readonly session: Session;
  readonly length: number;
  readonly layout: FileLayout;
  /** Bytes of the file that are committed (complete lines), and their running SHA-256. */
  readonly committedBytes: number;
  readonly hash: Hash;
  /** Memo of shorter prefixes' hex SHA-256 by byte length (kept with a load-cache entry). */
  readonly prefixHashes?: Map<number, string>;
}

/**
 * Whether `seed` is exactly the source's first `seed.length` events — the same validated, frozen
 * event objects (a fork of a session this store loaded shares them). Pointer comparisons only.
 */
export function sharesPrefix(seed: readonly SessionEvent[], source: SeedSource): boolean {
  const n = seed.length;
  if (n > source.length) return false;
  const events = source.session.events;
  for (let i = 0; i < n; i++) if (seed[i] !== events[i]) return false;
  return true;
}

/** Hex SHA-256 of the source file's first `bytes` bytes (from the running hash, the memo, or a read), or undefined if the file is shorter. */
export async function prefixSha256(
  fs: StoreFileSystem,
  source: SeedSource,
  bytes: number,
  maxLogBytes: number,
): Promise<string | undefined> {
  if (bytes === source.committedBytes) return digestOf(source.hash);
  const memo = source.prefixHashes?.get(bytes);
  if (memo !== undefined) return memo;
  const sha256 = await sha256OfPrefix(fs, source.file, bytes, maxLogBytes);
  if (sha256 !== undefined) source.prefixHashes?.set(bytes, sha256);
  return sha256;
}

/** What a store holds of stored session `id` without reading it, if anything. */
export type KnownSource = (id: string) => Promise<SeedSource | undefined>;

/**
 * The reference `create` writes instead of the seed, when the seed is exactly the first `n`
 * events of a stored log the store holds (the parent, or — for a seed inside the parent's own
 * seed — the log that seed came from). Undefined (copy the seed) otherwise.
 */
export async function referenceFor(
  header: SessionMeta,
  seed: readonly SessionEvent[],
  known: KnownSource,
  fs: StoreFileSystem,
  maxLogBytes: number,
): Promise<SeedFrom | undefined> {
  const n = seed.length;
  let id = header.parentSession;
  if (id === undefined || n === 0 || header.seedLength !== n || !isSafeSessionId(id)) return undefined;
  let source = await known(id);
  for (let depth = 0; source !== undefined && n <= source.layout.firstSeq; depth++) {
    id = source.layout.seedFrom?.session;
    source = id === undefined || depth > MAX_SEED_DEPTH ? undefined : await known(id);
  }
  if (id === undefined || source === undefined || !sharesPrefix(seed, source)) return undefined;
  const bytes = prefixEnd(source.layout, n);
  if (bytes === undefined || bytes > source.committedBytes) return undefined;
  const sha256 = await prefixSha256(fs, source, bytes, maxLogBytes).catch(() => undefined);
  return sha256 === undefined ? undefined : { session: id, bytes, sha256 };
}
