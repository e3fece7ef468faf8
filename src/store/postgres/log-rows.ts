// The rows of a stored log: the header and each event as TEXT holding exactly the JSONL codec's
// line without its newline (so a log exported from PostgreSQL is byte-for-byte the JSONL file,
// and audits hash the same bytes), and their decode into a validated Session — the same checks,
// in the same order, as the JSONL load (foreign meta line, newer log, another session's meta,
// corruption by line: line 1 is the header, seq N is line N + 2).
import { previewJson } from "../../json/index.js";
import {
  Session,
  SessionError,
  type SessionEvent,
  type SessionMeta,
  type SessionOptions,
} from "../../session/index.js";
import { decodeMetaLine, encodeEventLine, encodeMetaLine, newerLogError } from "../jsonl-codec.js";
import { StoreError } from "../types.js";

/** The stored text of an event: its JSONL line without the newline. */
export const eventText = (event: SessionEvent): string => encodeEventLine(event).slice(0, -1);

/** The stored text of a session meta (the `header` column): its JSONL meta line (format-tagged) without the newline. */
export const metaText = (header: SessionMeta): string => encodeMetaLine(header).slice(0, -1);

/** Parses stored event lines (the first is seq `firstSeq`); `corrupt` names the first that is not JSON. */
export function parseLines(lines: readonly string[], firstSeq: number, where: string): unknown[] {
  const events: unknown[] = new Array(lines.length);
  for (let i = 0; i < lines.length; i++) {
    try {
      events[i] = JSON.parse(lines[i]!);
    } catch {
      const line = firstSeq + i + 2;
      throw new StoreError("corrupt", `${where}: line ${line} (seq ${firstSeq + i}) is not valid JSON`, {
        file: where,
        line,
      });
    }
  }
  return events;
}

/** Decodes and validates a stored log (header text and every event line from seq 0) into a Session. */
export function decodeStoredLog(
  sessionId: string,
  header: string,
  lines: readonly string[],
  where: string,
  options: SessionOptions = {},
): Session {
  const decodedHeader = decodeMetaLine(header, where);
  const events = parseLines(lines, 0, where);
  const newer = newerLogError({ header: decodedHeader, events }, where);
  if (newer !== undefined) throw newer;
  const id = (decodedHeader as { id?: unknown }).id;
  if (id !== sessionId)
    throw new StoreError("corrupt", `${where}: line 1 names session ${previewJson(id)}, not ${sessionId}`, {
      file: where,
      line: 1,
    });
  try {
    return Session.fromParsedLog(decodedHeader, events, options);
  } catch (e) {
    throw corruptFrom(e, where);
  }
}

/**
 * Decodes a stored log over a known prefix of it: `seed`'s first `seedLength` events are the
 * stored rows below `seedLength` (a fork's seed, or this store's own earlier copy of the log:
 * shared, not read or validated again) and `lines` are the rows from seq `seedLength` on —
 * checked as `decodeStoredLog` checks a whole log.
 */
export function decodeOverPrefix(
  sessionId: string,
  header: string,
  seed: Session,
  seedLength: number,
  lines: readonly string[],
  where: string,
  options: SessionOptions = {},
): Session {
  const decodedHeader = decodeMetaLine(header, where);
  const events = parseLines(lines, seedLength, where);
  const newer = newerLogError({ header: decodedHeader, events }, where);
  if (newer !== undefined) throw newer;
  const id = (decodedHeader as { id?: unknown }).id;
  if (id !== sessionId)
    throw new StoreError("corrupt", `${where}: line 1 names session ${previewJson(id)}, not ${sessionId}`, {
      file: where,
      line: 1,
    });
  try {
    return Session.fromSessionAndParsed(seed, decodedHeader, seedLength, events, options);
  } catch (e) {
    throw corruptFrom(e, where);
  }
}

function corruptFrom(e: unknown, where: string): unknown {
  if (!(e instanceof SessionError)) return e;
  const line = e.code === "invalid-header" ? 1 : e.seq === undefined ? undefined : e.seq + 2;
  return new StoreError("corrupt", `${where}${line === undefined ? "" : `: line ${line}`}: ${e.message}`, {
    file: where,
    ...(line === undefined ? {} : { line }),
    cause: e,
  });
}

/** A lone surrogate: half of a pair, which UTF-8 (and so PostgreSQL TEXT) cannot hold. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * `text` as a PostgreSQL TEXT column can hold it: TEXT refuses U+0000 outright (the whole
 * statement fails), and a lone surrogate has no UTF-8 form; both become U+FFFD. For columns
 * holding raw untrusted text (title, cwd) — event and header rows are JSON, where both are escaped.
 */
export function storableText(text: string): string {
  return text.replaceAll("\u0000", "\ufffd").replace(LONE_SURROGATE, "\ufffd");
}

/** A session title: the text of the first `user/message` among `events` (up to 200 characters, storable), if any. */
export function titleOf(events: readonly SessionEvent[]): string | undefined {
  for (const event of events) {
    if (event.type !== "user/message") continue;
    const { content } = (event as SessionEvent<"user/message">).data;
    const text = content
      .map((part) => (part.type === "text" ? part.text : ""))
      .join(" ")
      .trim();
    if (text !== "") return storableText(text.slice(0, 200));
  }
  return undefined;
}
