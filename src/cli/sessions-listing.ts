// `keelson sessions`' rendered listing, kept between runs (decision record 0031): the exact
// rows the command prints (escaped for the terminal, in their order: created, then file name),
// with the generation of the store's index they were rendered from and a render tag (Keelson's
// version, this format's, and a hash of the code that renders a row). The next listing asks the
// store what changed since that generation (`listLogChanges`) and patches the rows it names —
// byte slices of the kept text around them — instead of rendering 10,000 rows; with nothing
// changed it prints the kept text as it is. Kept in the index's directory: it belongs to one
// sessions directory, goes when the index is removed, and is keyed by the index's generation.
//
// File: line 1 JSON (format, render tag, generation, row count, the key section's length, a
// seal of everything after line 1: HMAC-SHA256 under this user's listing key, listing-key.ts);
// then a key line per row, `<created>\t<file name as JSON>`
// (a problem row's created is the largest safe integer: it sorts last); then the rows, one per
// line. A row changed in place (same name and created: a new turn) or a row removed is found by
// a byte search of the keys, and a new row that sorts last is appended, without decoding the
// other keys; anything else decodes them all. A file that is missing, torn, edited or written
// by anyone without the key (the seal), of another render tag or whose generation the store does
// not know costs a full render, never a wrong row: the kept rows are printed without escaping
// again, so only rows this user's Keelson escaped are (a listing planted in a shared sessions
// directory with raw escape sequences never reaches the terminal). Written as a private temp file renamed into place, not fsynced; never fails the
// listing (a read-only directory: no kept listing).
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { mkdir, open, readFile, rename, unlink } from "node:fs/promises";
import { dirname } from "node:path";

const FORMAT = "keelson-sessions-listing";
/** The largest listing kept (a larger one is rendered every time). */
const MAX_BYTES = 64 * 1024 * 1024;
const NEWLINE = 0x0a;

/** One rendered row: its sort key (created, then file name) and its escaped text (no newline). */
export interface RenderedRow {
  readonly name: string;
  readonly created: number;
  readonly text: string;
}

/** A listing as pieces of bytes (kept slices and new rows): `count` key lines and `count` rows. */
export interface Listing {
  readonly count: number;
  readonly keys: readonly Buffer[];
  readonly body: readonly Buffer[];
}

/** A kept listing whose render tag matched. */
export interface KeptListing {
  readonly generation: string;
  readonly count: number;
  readonly keys: Buffer;
  /** The rows, each ending with a newline. */
  readonly body: Buffer;
}

/** The listing of `rows` (in order), rendered whole. */
export function listingOf(rows: readonly RenderedRow[]): Listing {
  return {
    count: rows.length,
    keys: [Buffer.from(rows.map(keyLine).join(""))],
    body: [Buffer.from(rows.map((r) => `${r.text}\n`).join(""))],
  };
}

const keyLine = (r: { readonly name: string; readonly created: number }): string =>
  `${r.created}\t${JSON.stringify(r.name)}\n`;

/** The kept listing in `file` rendered with `render`, or undefined (see the module comment). */
export async function readListing(file: string, render: string, key: Buffer): Promise<KeptListing | undefined> {
  try {
    const bytes = await readFile(file);
    if (bytes.length > MAX_BYTES) return undefined;
    const first = bytes.indexOf(NEWLINE);
    if (first < 0) return undefined;
    const facts: unknown = JSON.parse(bytes.toString("utf8", 0, first));
    if (typeof facts !== "object" || facts === null) return undefined;
    const { format, render: tag, generation, count, keys, seal } = facts as Record<string, unknown>;
    if (format !== FORMAT || tag !== render || typeof generation !== "string") return undefined;
    if (!Number.isSafeInteger(count) || !Number.isSafeInteger(keys) || typeof seal !== "string") return undefined;
    const rest = bytes.subarray(first + 1);
    if ((keys as number) > rest.length || !sameSeal(sealOf(key, [rest]), seal)) return undefined; // torn, edited, foreign
    return {
      generation,
      count: count as number,
      keys: rest.subarray(0, keys as number),
      body: rest.subarray(keys as number),
    };
  } catch {
    return undefined;
  }
}

/** Writes a listing (best effort: a failure leaves the previous one, or none, and no temp file). */
export async function writeListing(
  file: string,
  listing: Listing & { readonly render: string; readonly generation: string },
  key: Buffer,
): Promise<void> {
  const rest = [...listing.keys, ...listing.body];
  const facts = {
    format: FORMAT,
    render: listing.render,
    generation: listing.generation,
    count: listing.count,
    keys: listing.keys.reduce((n, b) => n + b.length, 0),
    seal: sealOf(key, rest),
  };
  const temp = `${file}.${process.pid}-${randomBytes(4).toString("hex")}.tmp`;
  try {
    // Private, as the logs whose prompts it previews are (the store's file-modes.ts).
    await mkdir(dirname(file), { recursive: true, mode: 0o700 });
    const handle = await open(temp, "wx", 0o600);
    try {
      await handle.writev([Buffer.from(`${JSON.stringify(facts)}\n`), ...rest]);
    } finally {
      await handle.close();
    }
    await rename(temp, file);
  } catch {
    await unlink(temp).catch(() => undefined);
  }
}

/** Row order: created, then file name (UTF-16 code units, as the store sorts names). */
const before = (a: { created: number; name: string }, b: { created: number; name: string }): boolean =>
  a.created !== b.created ? a.created < b.created : a.name < b.name;

/**
 * The kept rows with the rows named in `gone` (which names every fresh row too) taken out and
 * `fresh` put in their place by order; undefined when the kept keys are malformed (render
 * everything instead).
 */
export function patchListing(
  kept: KeptListing,
  fresh: readonly RenderedRow[],
  gone: ReadonlySet<string>,
): Listing | undefined {
  const add = [...fresh].sort((a, b) => (before(a, b) ? -1 : 1));
  return inPlace(kept, add, gone) ?? merged(kept, add, gone);
}

/**
 * The common patches without decoding the keys: each gone row found by a byte search of the
 * keys and dropped, or replaced by the fresh row of the same name and created; the other fresh
 * rows (new names) appended when they sort after the last kept row. Undefined otherwise.
 */
function inPlace(kept: KeptListing, add: readonly RenderedRow[], gone: ReadonlySet<string>): Listing | undefined {
  const byName = new Map(add.map((r) => [r.name, r]));
  const found: { line: number; keyStart: number; keyEnd: number; row: RenderedRow | undefined }[] = [];
  for (const name of gone) {
    const at = kept.keys.indexOf(`\t${JSON.stringify(name)}\n`);
    if (at < 0) continue; // not kept: a new row (appended below) or one gone already
    const keyStart = kept.keys.lastIndexOf(NEWLINE, at) + 1;
    const row = byName.get(name);
    if (row !== undefined && Number(kept.keys.toString("latin1", keyStart, at)) !== row.created) return undefined;
    byName.delete(name);
    found.push({ line: -1, keyStart, keyEnd: kept.keys.indexOf(NEWLINE, at) + 1, row });
  }
  const appended = add.filter((r) => byName.has(r.name));
  if (appended.length > 0 && kept.count > 0) {
    const lastStart = kept.keys.lastIndexOf(NEWLINE, kept.keys.length - 2) + 1;
    const last = kept.keys.toString("utf8", lastStart, kept.keys.length - 1).split("\t");
    const lastKey = { created: Number(last[0]), name: JSON.parse(last[1] ?? "null") as string };
    if (typeof lastKey.name !== "string" || !before(lastKey, appended[0]!)) return undefined;
  }
  // Each found key's line number, and that row's bytes, walked to from the nearer end (the
  // changed row is usually among the newest, listed last).
  found.sort((a, b) => a.keyStart - b.keyStart);
  const keys: Buffer[] = [];
  const body: Buffer[] = [];
  let keyFrom = 0;
  let rowFrom = 0;
  for (const f of found) {
    f.line = lineAt(kept.keys, f.keyStart, kept.count);
    const rowAt = lineStart(kept.body, f.line, kept.count);
    const rowEnd = rowAt < 0 ? 0 : kept.body.indexOf(NEWLINE, rowAt) + 1;
    if (rowEnd === 0 || rowAt < rowFrom) return undefined; // fewer rows than keys
    keys.push(kept.keys.subarray(keyFrom, f.keyStart));
    body.push(kept.body.subarray(rowFrom, rowAt));
    if (f.row !== undefined) {
      keys.push(Buffer.from(keyLine(f.row)));
      body.push(Buffer.from(`${f.row.text}\n`));
    }
    keyFrom = f.keyEnd;
    rowFrom = rowEnd;
  }
  keys.push(kept.keys.subarray(keyFrom), Buffer.from(appended.map(keyLine).join("")));
  body.push(kept.body.subarray(rowFrom), Buffer.from(appended.map((r) => `${r.text}\n`).join("")));
  const removed = found.filter((f) => f.row === undefined).length;
  return { count: kept.count - removed + appended.length, keys, body };
}

/** The number of the line starting at `offset` in `lines` (`count` lines, each ending with a newline). */
function lineAt(lines: Buffer, offset: number, count: number): number {
  let line = 0;
  if (offset <= lines.length / 2) {
    for (let at = 0; at < offset; line++) at = lines.indexOf(NEWLINE, at) + 1;
    return line;
  }
  for (let at = lines.length - 1; at >= offset; line++) at = lines.lastIndexOf(NEWLINE, at - 1);
  return count - line;
}

/** Where line `line` of `lines` (`count` lines, each ending with a newline) starts; -1 when there are fewer. */
function lineStart(lines: Buffer, line: number, count: number): number {
  let at = 0;
  if (line <= count / 2) {
    for (let i = 0; i < line; i++) {
      const newline = lines.indexOf(NEWLINE, at);
      if (newline < 0) return -1;
      at = newline + 1;
    }
    return at;
  }
  at = lines.length; // the start of line `count` (one past the last)
  for (let i = count; i > line; i--) {
    if (at <= 0) return -1;
    at = (at >= 2 ? lines.lastIndexOf(NEWLINE, at - 2) : -1) + 1;
  }
  return at;
}

/** Any patch: every kept key decoded, kept and fresh rows merged in order. */
function merged(kept: KeptListing, add: readonly RenderedRow[], gone: ReadonlySet<string>): Listing | undefined {
  const lines = kept.keys.toString("utf8").split("\n");
  if (lines.length !== kept.count + 1 || lines[kept.count] !== "") return undefined;
  const rows: (RenderedRow | { created: number; name: string; start: number; end: number })[] = [];
  let at = 0;
  for (let i = 0; i < kept.count; i++) {
    const tab = lines[i]!.indexOf("\t");
    const created = Number(lines[i]!.slice(0, tab));
    let name: unknown;
    try {
      name = JSON.parse(lines[i]!.slice(tab + 1));
    } catch {
      return undefined;
    }
    const end = kept.body.indexOf(NEWLINE, at) + 1;
    if (tab < 0 || !Number.isFinite(created) || typeof name !== "string" || end === 0) return undefined;
    if (!gone.has(name)) rows.push({ created, name, start: at, end });
    at = end;
  }
  if (at !== kept.body.length) return undefined;
  const out = [...rows, ...add].sort((a, b) => (before(a, b) ? -1 : 1));
  return {
    count: out.length,
    keys: [Buffer.from(out.map(keyLine).join(""))],
    body: out.map((r) => ("text" in r ? Buffer.from(`${r.text}\n`) : kept.body.subarray(r.start, r.end))),
  };
}

const sealOf = (key: Buffer, pieces: readonly Buffer[]): string => {
  const mac = createHmac("sha256", key);
  for (const piece of pieces) mac.update(piece);
  return mac.digest("hex");
};

/** Compared in constant time: the seal is a MAC. */
const sameSeal = (a: string, b: string): boolean =>
  a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
