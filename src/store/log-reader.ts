// LogReader: how the JSONL store reads one log file into a validated Session — read (regular
// files only, size-limited), decode, refuse newer logs and a header naming another session,
// validate — and, for a fork stored by reference (seed-reference.ts), takes its first events
// from the source log it names after checking that log's prefix against the recorded length and
// SHA-256. Nothing is written. The store supplies what it already holds (open writers, the load
// cache) so a source is not read twice.
import type { Hash } from "node:crypto";
import type { Stats } from "node:fs";
import { previewJson } from "../json/index.js";
import { Session, SessionError, type SessionOptions } from "../session/index.js";
import { type FileLayout, prefixEnd, sha256Over } from "./file-layout.js";
import { isNotFound } from "./fs-error-text.js";
import { decodeLog, newerLogError } from "./jsonl-codec.js";
import type { StoreFileSystem } from "./store-file-system.js";
import { readLogFileWithInfo } from "./read-log-file.js";
import type { SeedFrom } from "./seed-reference.js";
import { type KnownSource, MAX_SEED_DEPTH, prefixSha256 } from "./seed-source.js";
import { StoreError } from "./types.js";

/** The error of a load of a session whose log does not exist. */
export const notFound = (sessionId: string, file: string): StoreError =>
  new StoreError("not-found", `no session ${sessionId} (${file} does not exist)`, { file });

/** A log file read and validated by `LogReader.read`. */
export interface ReadLog {
  readonly session: Session;
  /** The fstat before the read; `complete` when the read saw exactly that many bytes. */
  readonly info: Stats;
  readonly complete: boolean;
  readonly committedBytes: number;
  readonly tornBytes: number;
  readonly layout: FileLayout;
  /** SHA-256 over the committed bytes. */
  readonly hash: Hash;
}

export interface LogReaderContext {
  readonly fs: StoreFileSystem;
  readonly maxLogBytes: number;
  readonly fileOf: (id: string) => string;
  /** What the store holds of a session without reading it (an open writer, an unchanged cache entry). */
  readonly known: KnownSource;
  /** Called with every source log read on the way (the store may cache it). */
  readonly readSource: (id: string, log: ReadLog) => void;
}

export class LogReader {
  readonly #ctx: LogReaderContext;

  constructor(ctx: LogReaderContext) {
    this.#ctx = ctx;
  }

  /**
   * Reads, decodes and validates session `sessionId`'s log `file`; a referencing log's seed is
   * taken from its source (`seedOf`). `chain` holds the sessions whose seeds are being resolved.
   */
  async read(sessionId: string, file: string, options: SessionOptions, chain: readonly string[]): Promise<ReadLog> {
    let bytes: Buffer;
    let info: Stats;
    try {
      ({ bytes, info } = await readLogFileWithInfo(this.#ctx.fs, file, this.#ctx.maxLogBytes));
    } catch (e) {
      if (isNotFound(e))
        throw new StoreError("not-found", `no session ${sessionId} (${file} does not exist)`, { file });
      throw e;
    }
    const decoded = decodeLog(bytes, file);
    const { header, events, committedBytes, tornBytes, seedFrom } = decoded;
    const newer = newerLogError({ header, events }, file);
    if (newer !== undefined) throw newer;
    if ((header as { id?: unknown }).id !== sessionId) {
      throw new StoreError(
        "corrupt",
        `${file}: line 1 names session ${previewJson((header as { id?: unknown }).id)}, not ${sessionId}`,
        { file, line: 1 },
      );
    }
    const firstSeq = seedFrom === undefined ? 0 : (header as { seedLength: number }).seedLength;
    let session: Session;
    try {
      if (seedFrom === undefined) session = Session.fromParsedLog(header, events, options);
      else {
        const seed = await this.seedOf(file, seedFrom, firstSeq, chain);
        session = Session.fromSessionAndParsed(seed, header, firstSeq, events, options);
      }
    } catch (e) {
      if (!(e instanceof SessionError)) throw e;
      const line = e.code === "invalid-header" ? 1 : e.seq === undefined ? undefined : e.seq - firstSeq + 2;
      throw new StoreError("corrupt", `${file}${line === undefined ? "" : `: line ${line}`}: ${e.message}`, {
        file,
        ...(line === undefined ? {} : { line }),
        cause: e,
      });
    }
    return {
      session,
      info,
      committedBytes,
      tornBytes,
      complete: bytes.length === info.size,
      layout: { firstSeq, lineEnds: decoded.lineEnds, seedFrom },
      hash: sha256Over(bytes.subarray(0, committedBytes)),
    };
  }

  /**
   * The stored session holding the first `n` events of the referencing log `file` (they are its
   * first `n`), after checking that its file still holds them in its first `seedFrom.bytes`
   * bytes with the recorded SHA-256. Anything else is `seed-unavailable`, naming both files.
   */
  async seedOf(file: string, seedFrom: SeedFrom, n: number, chain: readonly string[]): Promise<Session> {
    const id = seedFrom.session;
    const sourceFile = this.#ctx.fileOf(id);
    const unavailable = (why: string, cause?: unknown): StoreError =>
      new StoreError(
        "seed-unavailable",
        `${file}: its first ${n} events are in session ${id} (${sourceFile}), which ${why}; it was not loaded`,
        { file, line: 1, ...(cause === undefined ? {} : { cause }) },
      );
    if (chain.includes(id) || chain.length > MAX_SEED_DEPTH)
      throw new StoreError("corrupt", `${file}: line 1: its seed reference to ${id} loops back or is too deep`, {
        file,
        line: 1,
      });
    let source = await this.#ctx.known(id);
    if (source === undefined) {
      try {
        const log = await this.read(id, sourceFile, {}, [...chain, id]);
        this.#ctx.readSource(id, log);
        source = { ...log, file: sourceFile, length: log.session.length };
      } catch (e) {
        if (e instanceof StoreError && e.code === "not-found") throw unavailable("does not exist", e);
        if (e instanceof StoreError) throw unavailable(`cannot be loaded: ${e.message}`, e);
        throw e;
      }
    }
    const end = prefixEnd(source.layout, n);
    if (end !== seedFrom.bytes || end > source.committedBytes)
      throw unavailable(`does not end its first ${n} events at byte ${seedFrom.bytes} (it was replaced or cut short)`);
    const sha256 = await prefixSha256(this.#ctx.fs, source, seedFrom.bytes, this.#ctx.maxLogBytes);
    if (sha256 !== seedFrom.sha256)
      throw unavailable(`changed since the fork (the SHA-256 of its first ${seedFrom.bytes} bytes differs)`);
    return source.session;
  }
}
