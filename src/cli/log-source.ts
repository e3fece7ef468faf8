// Where the inspection commands get a session from: a session id (read-only through the
// store, never locking or repairing) or a path to a `.jsonl` file (decoded with the store's own
// codec, read-only). Files are read like the store reads them: regular files only, up to the
// store's size limit, never blocking on a FIFO. Failures are CliErrors naming the file and line,
// with the StoreError as `cause`.
import * as nodeFs from "node:fs/promises";
import { dirname, resolve } from "node:path";
import {
  type ChildState,
  childStateOf,
  Session,
  SessionError,
  type SessionEvent,
  type SessionMeta,
  validateSessionMeta,
} from "../session/index.js";
import {
  decodeLog,
  JsonlSessionStore,
  newerLogError,
  readLogFile,
  type SessionStore,
  StoreError,
} from "../store/index.js";
import { CliError, problemOf } from "./errors.js";

export { problemOf } from "./errors.js";
import { openJsonlStore, openStore, usesJsonl } from "./store-target.js";

export interface LoadedLog {
  readonly file: string;
  readonly session: Session;
}

/**
 * A raw decode of a log file: the header and every complete event line parsed as JSON. For a
 * fork stored by reference (log version 2), `events` starts with the seed taken from its source
 * log (validated, looked up in the file's directory) and the file's own lines hold seqs from
 * `firstSeq` on.
 */
export interface RawLog {
  readonly file: string;
  readonly header: unknown;
  readonly events: readonly unknown[];
  /** Seq of the file's first event line (line 2): 0, or a referencing log's seed length. */
  readonly firstSeq: number;
  /** A referencing log's seed: its first `firstSeq` events. */
  readonly seed?: Session;
  /** Set when the log was written by a newer Keelson (`newer-version`): the decode is best-effort. */
  readonly newer?: StoreError;
}

export { type CliStore, openStore } from "./store-target.js";

/** A target is a file when it names one (has a path separator or ends in `.jsonl`). */
export function isFileTarget(target: string): boolean {
  return target.includes("/") || target.endsWith(".jsonl");
}

/** The file a target refers to: the path itself, or the JSONL store's file for an id. */
export function fileOfTarget(target: string): string {
  if (isFileTarget(target)) return resolve(target);
  try {
    return openJsonlStore().fileOf(target);
  } catch (error) {
    throw cliErrorOf(error);
  }
}

/**
 * A raw decode of a target: a file (or, with the JSONL store, a session's file) as
 * `readRawLog` decodes it; with the PostgreSQL store a session id is loaded read-only through
 * the store (its rows were validated when written) and `file` names the database and session.
 */
export async function readRawTarget(target: string): Promise<RawLog> {
  if (isFileTarget(target) || usesJsonl()) {
    const file = fileOfTarget(target);
    return readRawLog(file, isFileTarget(target) ? file : target);
  }
  const store = await openStore();
  try {
    const { session } = await store.load(target, { readOnly: true });
    return { file: store.whereOf(target), header: session.header, events: session.events, firstSeq: 0 };
  } catch (error) {
    throw cliErrorOf(error);
  } finally {
    await store.close().catch(() => undefined);
  }
}

/**
 * Reads and decodes a log file read-only (a torn final line is dropped, as the store does). A
 * log written by a newer Keelson is returned with `newer` set, for the caller to refuse or show
 * best-effort; everything else that keeps it from decoding is thrown.
 */
export async function readRawLog(file: string, label = file): Promise<RawLog> {
  let bytes: Buffer;
  try {
    // A FILE the person named may be a link (`~/latest.jsonl`); a store's own log never is.
    bytes = await readLogFile(nodeFs, file, undefined, { followLinks: label === file });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT")
      throw new CliError(
        label === file ? `no such file: ${file}` : `unknown session ${label} (${file} does not exist)`,
      );
    if (error instanceof StoreError) throw cliErrorOf(error);
    throw new CliError(`cannot read ${file}: ${code ?? String(error)}`);
  }
  try {
    const decoded = decodeLog(bytes, file);
    const newer = newerLogError(decoded, file);
    if (newer !== undefined) return { file, header: decoded.header, events: decoded.events, firstSeq: 0, newer };
    if (decoded.seedFrom === undefined) return { file, header: decoded.header, events: decoded.events, firstSeq: 0 };
    const firstSeq = (decoded.header as { seedLength: number }).seedLength;
    const store = new JsonlSessionStore({ root: dirname(file), cacheSessions: 0 });
    const seed = await store.seedOf(file, decoded.seedFrom, firstSeq);
    const events = [...seed.events.slice(0, firstSeq), ...decoded.events];
    return { file, header: decoded.header, events, firstSeq, seed };
  } catch (error) {
    throw cliErrorOf(error);
  }
}

/** The file line of event `seq` in a raw log (undefined for a seed event, which is in its source's file). */
export function lineOfSeq(raw: Pick<RawLog, "firstSeq">, seq: number): number | undefined {
  return seq < raw.firstSeq ? undefined : seq - raw.firstSeq + 2;
}

/** Loads a session by id or file, read-only, validated like a store load. */
export async function loadLog(target: string): Promise<LoadedLog> {
  if (!isFileTarget(target)) {
    const store = await openStore();
    try {
      const { session } = await store.load(target, { readOnly: true });
      return { file: store.whereOf(target), session };
    } catch (error) {
      throw cliErrorOf(error);
    } finally {
      await store.close().catch(() => undefined);
    }
  }
  const raw = await readRawLog(resolve(target));
  if (raw.newer !== undefined) throw cliErrorOf(raw.newer);
  try {
    validateSessionMeta(raw.header);
    const session =
      raw.seed === undefined
        ? Session.fromParsedLog(raw.header as SessionMeta, raw.events)
        : Session.fromSessionAndParsed(raw.seed, raw.header, raw.firstSeq, raw.events.slice(raw.firstSeq));
    return { file: raw.file, session };
  } catch (error) {
    if (error instanceof SessionError) {
      const line =
        error.code === "invalid-header" ? 1 : error.seq === undefined ? undefined : lineOfSeq(raw, error.seq);
      throw new CliError(`${raw.file}${line === undefined ? "" : `:${line}`}: ${error.code}: ${error.message}`, 1);
    }
    throw error;
  }
}

/** The events of a loaded log (a convenience for the pure folds). */
export function eventsOf(log: LoadedLog): readonly SessionEvent[] {
  return log.session.events;
}

/** True for the CliError (or StoreError) of a log written by a newer Keelson. */
export function isNewerLog(error: unknown): boolean {
  const store = error instanceof CliError ? error.cause : error;
  return store instanceof StoreError && store.code === "newer-version";
}

// The log itself is the problem (exit 1); any other refusal was of the request (exit 2: an
// unknown or invalid id, a locked session, a path that is not a regular file or is too large).
const LOG_PROBLEMS: ReadonlySet<string> = new Set(["corrupt", "foreign", "newer-version", "seed-unavailable"]);

/**
 * The CliError for a store failure: `file:line: code: message`; exit 1 when the log is bad
 * (corrupt, foreign, newer, or its seed's source log missing or changed), 2 otherwise. An unknown id reads `unknown session <id> (<file>
 * does not exist)` for every command. Other errors pass through.
 */
export function cliErrorOf(error: unknown): unknown {
  if (!(error instanceof StoreError)) return error;
  if (error.code === "not-found")
    return new CliError(error.message.replace(/^no session /, "unknown session "), 2, { cause: error });
  // A message that opens with the file ("/dev/zero is a character device, …") names it already.
  const named = error.file === undefined || error.message.startsWith(`${error.file} `);
  const where = named ? "" : `${error.file}${error.line === undefined ? "" : `:${error.line}`}: `;
  return new CliError(`${where}${error.code}: ${problemOf(error)}`, LOG_PROBLEMS.has(error.code) ? 1 : 2, {
    cause: error,
  });
}

/**
 * Runs `fn` with a store that holds the target's other sessions — its subagents' (`keelson
 * verify` and `show` read them): the store in force for a session id, the log's own directory
 * for a `.jsonl` path. Read-only loads only; the store is closed afterwards.
 */
export async function withSiblingStore<T>(target: string, fn: (store: SessionStore) => Promise<T>): Promise<T> {
  const store: SessionStore = isFileTarget(target)
    ? new JsonlSessionStore({ root: dirname(resolve(target)), cacheSessions: 0 })
    : await openStore();
  try {
    return await fn(store);
  } finally {
    await store.close().catch(() => undefined);
  }
}

/** A child as `checkSubagents` reads it from `store` (undefined: not stored). */
export async function childState(store: SessionStore, id: string): Promise<ChildState | undefined> {
  try {
    const { session, needsRepair } = await store.load(id, { readOnly: true });
    return childStateOf(session, needsRepair || session.openTurn !== null);
  } catch (error) {
    if (error instanceof StoreError && (error.code === "not-found" || error.code === "invalid-id")) return undefined;
    throw cliErrorOf(error);
  }
}
