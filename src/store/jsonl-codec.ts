// The JSONL file format: a meta line `{"format":"keelson-session",...SessionMeta}`, then
// one event per line, every line terminated by "\n". A final segment without "\n" is a torn
// write (it was never flushed whole) and is dropped on load. `decodeLog` is the one read-only
// decode of a file's bytes (the store's load and the CLI's FILE targets both use it);
// `newerLogError` says when the log was written by a newer Keelson.
import { constants as bufferConstants, isUtf8 } from "node:buffer";
import type { SessionEvent, SessionMeta } from "../session/index.js";
// Not re-exported by the session index (src/session/index.ts is another engineer's file).
import { LOG_VERSION, newerLogVersion, unknownEventFeature } from "../session/index.js";
import { REFERENCING_LOG_VERSION, type SeedFrom, splitSeedReference } from "./seed-reference.js";
import { StoreError } from "./types.js";

export const FORMAT = "keelson-session";

export function encodeMetaLine(header: SessionMeta): string {
  return `${JSON.stringify({ format: FORMAT, ...header })}\n`;
}

export function encodeEventLine(event: SessionEvent): string {
  return `${JSON.stringify(event)}\n`;
}

/**
 * Parses the meta line into the session meta (a referencing log's version-2 meta becomes
 * its version-1 session meta); throws `foreign` for a file that is not a Keelson session log
 * and `corrupt` for a malformed seed reference.
 */
export function decodeMetaLine(line: string, file: string): unknown {
  return decodeStoredMetaLine(line, file).header;
}

/** @deprecated Renamed `decodeMetaLine` (#21): "header" now means only the request header. */
export const decodeHeaderLine: (line: string, file: string) => unknown = decodeMetaLine;

/** `decodeMetaLine` with the seed reference of a referencing log (seed-reference.ts). */
export function decodeStoredMetaLine(line: string, file: string): { header: unknown; seedFrom: SeedFrom | undefined } {
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch {
    throw new StoreError("foreign", `${file} is not a Keelson session log: line 1 is not JSON`, { file, line: 1 });
  }
  if (typeof raw !== "object" || raw === null || (raw as { format?: unknown }).format !== FORMAT) {
    throw new StoreError("foreign", `${file} is not a Keelson session log: line 1 has no "format":"${FORMAT}"`, {
      file,
      line: 1,
    });
  }
  const { format: _format, ...header } = raw as Record<string, unknown>;
  return splitSeedReference(header, file);
}

export interface SplitLog {
  /** Complete lines (without their "\n"), meta line first. */
  readonly lines: string[];
  /** Byte length of the complete lines, "\n" included: the committed region. */
  readonly committedBytes: number;
  /** Bytes after the last "\n": a torn final line. */
  readonly tornBytes: number;
  /** The byte offset just after each complete line (`lineEnds[0]` ends the meta line). */
  readonly lineEnds: number[];
}

/**
 * Splits a file's bytes into complete lines and a torn tail. Each line is decoded on its own, so
 * a log larger than the longest string V8 can hold still splits; a single line that long throws
 * `StoreError('too-large')`.
 */
export function splitLog(bytes: Buffer, file = "the log"): SplitLog {
  const end = bytes.lastIndexOf(0x0a) + 1;
  const lines: string[] = [];
  const lineEnds: number[] = [];
  for (let start = 0; start < end; ) {
    const nl = bytes.indexOf(0x0a, start);
    if (nl - start > bufferConstants.MAX_STRING_LENGTH)
      throw new StoreError(
        "too-large",
        `${file}: line ${lines.length + 1} is ${nl - start} bytes, too long to decode`,
        {
          file,
          line: lines.length + 1,
        },
      );
    lines.push(bytes.toString("utf8", start, nl));
    start = nl + 1;
    lineEnds.push(start);
  }
  return { lines, committedBytes: end, tornBytes: bytes.length - end, lineEnds };
}

/** A log file decoded read-only: the header and every complete event line, parsed but not validated. */
export interface DecodedLog extends SplitLog {
  /** The meta line's object without its `format` tag (a referencing log's as its version-1 session meta). */
  readonly header: unknown;
  /** A referencing log's seed reference: its first `seedLength` events are in another file. */
  readonly seedFrom: SeedFrom | undefined;
  /** The parsed event lines (line i + 2 of the file is `events[i]`). */
  readonly events: unknown[];
}

/**
 * Decodes a log's bytes: refuses a file that is not a Keelson log (`foreign`), a committed line
 * that is not valid UTF-8 or not JSON (`corrupt`, naming the line); drops a torn tail.
 */
export function decodeLog(bytes: Buffer, file: string): DecodedLog {
  const split = splitLog(bytes, file);
  const { lines, committedBytes } = split;
  if (lines.length === 0)
    throw new StoreError("foreign", `${file} is not a Keelson session log: it has no complete header line`, {
      file,
      line: 1,
    });
  const { header, seedFrom } = decodeStoredMetaLine(lines[0]!, file);
  const badLine = firstInvalidUtf8Line(bytes, committedBytes);
  if (badLine !== undefined) {
    throw new StoreError(
      "corrupt",
      `${file}: line ${badLine} is not valid UTF-8 (inside the committed log, so it is corruption, not a torn write)`,
      { file, line: badLine },
    );
  }
  const events: unknown[] = new Array(lines.length - 1);
  for (let i = 1; i < lines.length; i++) {
    try {
      events[i - 1] = JSON.parse(lines[i]!);
    } catch {
      throw new StoreError(
        "corrupt",
        `${file}: line ${i + 1} is not valid JSON (inside the committed log, so it is corruption, not a torn write)`,
        { file, line: i + 1 },
      );
    }
  }
  return { ...split, header, seedFrom, events };
}

/**
 * `StoreError('newer-version')` when a decoded log was written by a newer Keelson, else
 * undefined: a header `version` above this Keelson's (line 1), or, in a version-1 log, an event
 * of a type or with an envelope key this Keelson does not know — most likely written by a newer
 * Keelson, possibly corruption, and the message says both (naming the first such line).
 */
export function newerLogError(log: Pick<DecodedLog, "header" | "events">, file: string): StoreError | undefined {
  const version = newerLogVersion(log.header);
  if (version !== undefined) {
    return new StoreError(
      "newer-version",
      `${file}: written by a newer Keelson (log version ${version}); this Keelson reads log versions ${LOG_VERSION}–${REFERENCING_LOG_VERSION} (upgrade Keelson to open it)`,
      { file, line: 1 },
    );
  }
  for (const [i, event] of log.events.entries()) {
    const feature = unknownEventFeature(event);
    if (feature === undefined) continue;
    const line = i + 2;
    return new StoreError(
      "newer-version",
      `${file}: written by a newer Keelson, or corrupt: ${feature} at line ${line}`,
      { file, line },
    );
  }
  return undefined;
}

/**
 * The 1-based number of the first committed line that is not valid UTF-8, or undefined. The
 * writer only ever writes UTF-8 (JSON.stringify escapes lone surrogates), so such a line is
 * corruption — which a lossy decode would quietly turn into U+FFFD and load.
 */
export function firstInvalidUtf8Line(bytes: Buffer, committedBytes: number): number | undefined {
  if (isUtf8(bytes.subarray(0, committedBytes))) return undefined;
  let line = 1;
  for (let start = 0; start < committedBytes; line++) {
    const end = bytes.indexOf(0x0a, start);
    if (!isUtf8(bytes.subarray(start, end))) return line;
    start = end + 1;
  }
  return undefined;
}
