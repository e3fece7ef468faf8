// Fork by reference (docs/decisions/0009): a forked session's log need not copy its parent's
// events. Its meta line then carries log version 2 and `seedFrom` — the stored session whose
// file holds the seed, how many bytes of that file hold it, and their SHA-256:
//   {"format":"keelson-session","version":2,"id":…,"parentSession":…,"seedLength":N,
//    "seedFrom":{"session":…,"bytes":B,"sha256":"…"}}
// and its own event lines start at seq N. Version 2 means "this file needs another file to be
// read": a Keelson that reads only version 1 refuses it as written by a newer Keelson instead of
// loading a log without its first N events. In memory the session's meta is the ordinary
// version-1 SessionMeta (the reference is how the file stores it, not part of the session).
import { isSafeSessionId, LOG_VERSION, type SessionMeta } from "../session/index.js";
import { REFERENCING_LOG_VERSION } from "./referencing-version.js";
import { StoreError } from "./types.js";

export { REFERENCING_LOG_VERSION };

/** Where a referencing log's first `seedLength` events are. */
export interface SeedFrom {
  /** The stored session whose file holds them (the parent, or the ancestor the parent's seed came from). */
  readonly session: string;
  /** Byte length of that file's prefix holding its meta line and its lines up to seq `seedLength - 1`. */
  readonly bytes: number;
  /** Lower-case hex SHA-256 of those bytes. */
  readonly sha256: string;
}

const SHA256_HEX = /^[0-9a-f]{64}$/;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The meta line of a referencing log (the meta's own `version` key keeps its place, with value 2). */
export function encodeReferencingMetaLine(format: string, header: SessionMeta, seedFrom: SeedFrom): string {
  return `${JSON.stringify({ format, ...header, version: REFERENCING_LOG_VERSION, seedFrom })}\n`;
}

/**
 * Splits a decoded meta line (without `format`) into the session meta and its seed
 * reference. A version-2 meta must carry a well-formed `seedFrom` and a positive `seedLength`
 * (else `corrupt`, line 1); it becomes a version-1 meta without `seedFrom`. Any other meta
 * is returned unchanged (a version above 2 stays as is, for `newerLogError` to refuse).
 */
export function splitSeedReference(raw: unknown, file: string): { header: unknown; seedFrom: SeedFrom | undefined } {
  if (!isRecord(raw) || raw.version !== REFERENCING_LOG_VERSION) return { header: raw, seedFrom: undefined };
  const bad = (detail: string): StoreError =>
    new StoreError("corrupt", `${file}: line 1: a log version 2 header ${detail}`, { file, line: 1 });
  const { seedFrom, ...rest } = raw;
  if (!isRecord(seedFrom)) throw bad("needs a seedFrom object");
  const { session, bytes, sha256, ...extra } = seedFrom;
  const unknown = Object.keys(extra)[0];
  if (unknown !== undefined) throw bad(`has an unknown seedFrom key ${JSON.stringify(unknown)}`);
  if (typeof session !== "string" || !isSafeSessionId(session)) throw bad("needs seedFrom.session, a session id");
  if (!Number.isSafeInteger(bytes) || (bytes as number) <= 0) throw bad("needs seedFrom.bytes, a positive integer");
  if (typeof sha256 !== "string" || !SHA256_HEX.test(sha256)) throw bad("needs seedFrom.sha256, 64 hex digits");
  if (!Number.isSafeInteger(rest.seedLength) || (rest.seedLength as number) <= 0)
    throw bad("needs a positive seedLength");
  if (typeof rest.parentSession !== "string") throw bad("needs a parentSession");
  return {
    header: { ...rest, version: LOG_VERSION },
    seedFrom: { session, bytes: bytes as number, sha256 },
  };
}
