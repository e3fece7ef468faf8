// `keelson sessions`' rendered listing, kept between runs (decision record 0031): the exact
// rows the command prints (escaped for the terminal, in their order: created, then file name),
// with the generation of the store's index they were rendered from and a render tag (Keelson's
// version, this format's, and a hash of the code that renders a row). The next listing asks the
// store what changed since that generation (`listLogChanges`) and patches the rows it names —
// byte slices of the kept text around them — instead of rendering 10,000 rows; with nothing
// changed it prints the kept text as it is. Kept in the index's directory: it belongs to one
// sessions directory, goes when the index is removed, and is keyed by the index's generation.
//
// File: line 1 JSON (format, render tag, generation, row count, a SHA-1 of everything after
// line 1); line 2 the rows' file names (JSON array); line 3 their created times (JSON array;
// a problem row sorts last); then the rows, one per line. A file that is missing, torn, edited
// (the digest), of another render tag or whose generation the store does not know costs a full
// render, never a wrong row. Written as a private temp file renamed into place, not fsynced;
// never fails the listing (a read-only directory: no cache).
import { createHash, randomBytes } from "node:crypto";
import { mkdir, open, readFile, rename, unlink } from "node:fs/promises";
import { dirname } from "node:path";

const FORMAT = "keelson-sessions-listing";
/** The largest listing kept (a larger one is rendered every time). */
const MAX_BYTES = 64 * 1024 * 1024;

/** One rendered row: its sort key (created, then file name) and its escaped text (no newline). */
export interface RenderedRow {
  readonly name: string;
  readonly created: number;
  readonly text: string;
}

/** A kept listing whose render tag matched. */
export interface KeptListing {
  readonly generation: string;
  readonly count: number;
  /** The rows, each ending with a newline. */
  readonly body: Buffer;
  /** Line 2 and line 3 (parsed only to patch). */
  readonly keys: () => { names: unknown; created: unknown };
}

/** The kept listing in `file` rendered with `render`, or undefined (see the module comment). */
export async function readListing(file: string, render: string): Promise<KeptListing | undefined> {
  try {
    const bytes = await readFile(file);
    if (bytes.length > MAX_BYTES) return undefined;
    const first = bytes.indexOf(0x0a);
    const second = first < 0 ? -1 : bytes.indexOf(0x0a, first + 1);
    const third = second < 0 ? -1 : bytes.indexOf(0x0a, second + 1);
    if (third < 0) return undefined;
    const facts: unknown = JSON.parse(bytes.toString("utf8", 0, first));
    if (typeof facts !== "object" || facts === null) return undefined;
    const { format, render: tag, generation, count, digest } = facts as Record<string, unknown>;
    if (format !== FORMAT || tag !== render || typeof generation !== "string") return undefined;
    if (!Number.isSafeInteger(count) || typeof digest !== "string") return undefined;
    if (sha1(bytes.subarray(first + 1)) !== digest) return undefined; // torn or edited
    return {
      generation,
      count: count as number,
      body: bytes.subarray(third + 1),
      keys: () => ({
        names: JSON.parse(bytes.toString("utf8", first + 1, second)),
        created: JSON.parse(bytes.toString("utf8", second + 1, third)),
      }),
    };
  } catch {
    return undefined;
  }
}

/** Writes a listing (best effort: a failure leaves the previous one, or none, and no temp file). */
export async function writeListing(
  file: string,
  listing: {
    readonly render: string;
    readonly generation: string;
    readonly names: readonly string[];
    readonly created: readonly number[];
    readonly body: Buffer;
  },
): Promise<void> {
  const rest = Buffer.concat([
    Buffer.from(`${JSON.stringify(listing.names)}\n${JSON.stringify(listing.created)}\n`),
    listing.body,
  ]);
  const facts = {
    format: FORMAT,
    render: listing.render,
    generation: listing.generation,
    count: listing.names.length,
    digest: sha1(rest),
  };
  const temp = `${file}.${process.pid}-${randomBytes(4).toString("hex")}.tmp`;
  try {
    await mkdir(dirname(file), { recursive: true });
    const handle = await open(temp, "wx");
    try {
      await handle.writeFile(Buffer.concat([Buffer.from(`${JSON.stringify(facts)}\n`), rest]));
    } finally {
      await handle.close();
    }
    await rename(temp, file);
  } catch {
    await unlink(temp).catch(() => undefined);
  }
}

/** Row order: created, then file name (UTF-16 code units, as the store sorts names). */
const before = (aCreated: number, aName: string, bCreated: number, bName: string): boolean =>
  aCreated !== bCreated ? aCreated < bCreated : aName < bName;

/**
 * The kept rows with the rows named in `gone` or `fresh` taken out and `fresh` put in their
 * place by order; undefined when the kept keys are malformed (render everything instead).
 */
export function patchListing(
  kept: KeptListing,
  fresh: readonly RenderedRow[],
  gone: ReadonlySet<string>,
): { names: string[]; created: number[]; body: Buffer } | undefined {
  const { names: keptNames, created: keptCreated } = kept.keys();
  if (!Array.isArray(keptNames) || !Array.isArray(keptCreated)) return undefined;
  if (keptNames.length !== kept.count || keptCreated.length !== kept.count) return undefined;
  const out = { names: [] as string[], created: [] as number[] };
  const pieces: Buffer[] = [];
  const add = [...fresh].sort((a, b) => (before(a.created, a.name, b.created, b.name) ? -1 : 1));
  let next = 0;
  let runStart = 0; // the byte where the current run of kept rows began
  let at = 0;
  for (let i = 0; i < kept.count; i++) {
    const end = kept.body.indexOf(0x0a, at);
    const name = keptNames[i];
    const created = keptCreated[i];
    if (end < 0 || typeof name !== "string" || typeof created !== "number") return undefined;
    const drop = gone.has(name);
    const insert = next < add.length && !drop && before(add[next]!.created, add[next]!.name, created, name);
    if (drop || insert) {
      pieces.push(kept.body.subarray(runStart, at));
      runStart = drop ? end + 1 : at;
    }
    if (insert) {
      const rows: string[] = [];
      while (next < add.length && before(add[next]!.created, add[next]!.name, created, name)) {
        const row = add[next++]!;
        rows.push(`${row.text}\n`);
        out.names.push(row.name);
        out.created.push(row.created);
      }
      pieces.push(Buffer.from(rows.join("")));
    }
    if (!drop) {
      out.names.push(name);
      out.created.push(created);
    }
    at = end + 1;
  }
  if (at !== kept.body.length) return undefined;
  pieces.push(kept.body.subarray(runStart, at));
  const rows: string[] = [];
  for (; next < add.length; next++) {
    rows.push(`${add[next]!.text}\n`);
    out.names.push(add[next]!.name);
    out.created.push(add[next]!.created);
  }
  pieces.push(Buffer.from(rows.join("")));
  return { ...out, body: Buffer.concat(pieces) };
}

const sha1 = (bytes: Buffer): string => createHash("sha1").update(bytes).digest("hex");
