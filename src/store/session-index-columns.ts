// The summary index's columns (lines 2 and 3 of the index file, session-index-file.ts; decision
// record 0029): each log's head (name, identity, header facts) and its load result, one array per
// field, newest log first — their encoding, and their tolerant decoding (a malformed value drops
// that log's entry alone: its log is read again). `headColumns` gives line 2 without an object
// per log, for the fast view (session-index-view.ts).
import type { FileIdentity } from "./load-cache.js";
import {
  decodeDeps,
  encodeDeps,
  type HeaderFacts,
  type IndexEntry,
  isNumber,
  isOptionalString,
  isProblem,
  isRecord,
  type LogProblem,
  type Mutable,
  type SessionDigest,
} from "./session-index-entry.js";

const LOG_SUFFIX = ".jsonl";

// Line 2, the heads. `head[i]`: 0 not known yet, 1 the facts (`created`, `cwd` as an index into
// `cwds` or -1, `ids` / `parents` by position when present; the id only when it is not the file
// name's stem), 2 `list()` skips the file.
interface Heads {
  names: string[];
  dev: number[];
  ino: number[];
  size: number[];
  mtime: number[];
  head: number[];
  created: number[];
  cwd: number[];
  cwds: string[];
  ids: Record<string, string>;
  parents: Record<string, string>;
}

// Line 3, the details. `kind[i]`: 0 none, 1 a digest (`turns`, `events`, `open` 0/1, `prompt`
// string or null; its header facts are the head's), 2 a problem (`problems` by position).
// `deps` by position: `[name, dev, ino, size, mtimeMs]`, or `[name]` for a log that was absent.
interface Details {
  kind: number[];
  turns: number[];
  events: number[];
  open: number[];
  prompt: (string | null)[];
  problems: Record<string, LogProblem>;
  deps: Record<string, (string | number)[][]>;
}

export function encodeHeads(entries: readonly IndexEntry[]): Heads {
  const h: Heads = {
    names: [],
    dev: [],
    ino: [],
    size: [],
    mtime: [],
    head: [],
    created: [],
    cwd: [],
    cwds: [],
    ids: {},
    parents: {},
  };
  const cwdAt = new Map<string, number>();
  entries.forEach((e, i) => {
    h.names.push(e.name);
    h.dev.push(e.dev);
    h.ino.push(e.ino);
    h.size.push(e.size);
    h.mtime.push(e.mtimeMs);
    const facts = e.digest ?? e.header;
    h.head.push(facts === undefined ? 0 : facts === null ? 2 : 1);
    h.created.push(facts?.createdAt ?? 0);
    let cwd = -1;
    if (facts?.cwd !== undefined) {
      cwd = cwdAt.get(facts.cwd) ?? h.cwds.length;
      if (cwd === h.cwds.length) {
        cwdAt.set(facts.cwd, cwd);
        h.cwds.push(facts.cwd);
      }
    }
    h.cwd.push(cwd);
    if (facts && facts.id !== e.name.slice(0, -LOG_SUFFIX.length)) h.ids[i] = facts.id;
    if (facts?.parentSession !== undefined) h.parents[i] = facts.parentSession;
  });
  return h;
}

export function encodeDetails(entries: readonly IndexEntry[]): Details {
  const d: Details = { kind: [], turns: [], events: [], open: [], prompt: [], problems: {}, deps: {} };
  entries.forEach((e, i) => {
    const g = e.digest;
    d.kind.push(g !== undefined ? 1 : e.problem !== undefined ? 2 : 0);
    d.turns.push(g?.turns ?? 0);
    d.events.push(g?.events ?? 0);
    d.open.push(g?.open === true ? 1 : 0);
    d.prompt.push(g?.lastPrompt ?? null);
    if (g === undefined && e.problem !== undefined) d.problems[i] = e.problem;
    if (e.deps !== undefined && (g !== undefined || e.problem !== undefined)) d.deps[i] = encodeDeps(e.deps);
  });
  return d;
}

/** Line 2's entries by position (undefined where a value is malformed: that log is re-read). */
export function decodeHeads(raw: unknown, count: number): (Mutable<IndexEntry> | undefined)[] {
  const heads = headColumns(raw, count);
  const out: (Mutable<IndexEntry> | undefined)[] = [];
  if (heads !== undefined) for (let i = 0; i < count; i++) out.push(heads.at(i));
  return out;
}

/** Line 2 without an object per log: the names column, and one log's entry by position on demand. */
export interface HeadColumns {
  /** Per position: the log's file name (anything, in a garbled index: `at` checks it). */
  readonly names: readonly unknown[];
  /** Per position: the mtime recorded (anything, in a garbled index). */
  readonly mtimes: readonly unknown[];
  /** The entry at position `i` (identity and header facts), undefined when malformed. */
  readonly at: (i: number) => Mutable<IndexEntry> | undefined;
  /** Whether the identity recorded at position `i` is `identity` (no object built). */
  readonly identityIs: (i: number, identity: FileIdentity) => boolean;
}

/** Line 2's columns (`IndexFile.heads()` parsed), or undefined when they are not `count` long. */
export function headColumns(raw: unknown, count: number): HeadColumns | undefined {
  if (!isRecord(raw)) return undefined;
  const { names, dev, ino, size, mtime, head, created, cwd, cwds, ids, parents } = raw;
  if (!isColumn(names, count) || !isColumn(dev, count) || !isColumn(ino, count) || !isColumn(size, count))
    return undefined;
  if (!isColumn(mtime, count) || !isColumn(head, count) || !isColumn(created, count) || !isColumn(cwd, count))
    return undefined;
  if (!Array.isArray(cwds) || !isRecord(ids) || !isRecord(parents)) return undefined;
  return {
    names,
    mtimes: mtime,
    at: (i) => headAt(i, names, dev, ino, size, mtime, head, created, cwd, cwds, ids, parents),
    identityIs: (i, identity) =>
      dev[i] === identity.dev && ino[i] === identity.ino && size[i] === identity.size && mtime[i] === identity.mtimeMs,
  };
}

function headAt(
  i: number,
  names: unknown[],
  dev: unknown[],
  ino: unknown[],
  size: unknown[],
  mtime: unknown[],
  head: unknown[],
  created: unknown[],
  cwd: unknown[],
  cwds: unknown[],
  ids: Record<string, unknown>,
  parents: Record<string, unknown>,
): Mutable<IndexEntry> | undefined {
  const name = names[i];
  if (typeof name !== "string" || !name.endsWith(LOG_SUFFIX)) return undefined;
  if (!isNumber(dev[i]) || !isNumber(ino[i]) || !isNumber(size[i]) || !isNumber(mtime[i])) return undefined;
  const entry: Mutable<IndexEntry> = { name, dev: dev[i], ino: ino[i], size: size[i], mtimeMs: mtime[i] };
  const kind = head[i];
  if (kind === 2) entry.header = null;
  else if (kind === 1) {
    const id = ids[i] ?? name.slice(0, -LOG_SUFFIX.length);
    const at = cwd[i];
    const dir = at === -1 ? undefined : typeof at === "number" ? cwds[at] : null;
    const parent = parents[i];
    const createdAt = created[i];
    if (typeof id !== "string" || !isNumber(createdAt) || !isOptionalString(dir) || !isOptionalString(parent))
      return undefined;
    const facts: Mutable<HeaderFacts> = { id, createdAt };
    if (dir !== undefined) facts.cwd = dir as string;
    if (parent !== undefined) facts.parentSession = parent as string;
    entry.header = facts;
  } else if (kind !== 0) return undefined;
  return entry;
}

/** Adds line 3's load results to line 2's entries; a malformed one is left out (the log re-read). */
export function decodeDetails(raw: unknown, count: number, entries: (Mutable<IndexEntry> | undefined)[]): void {
  if (!isRecord(raw)) return;
  const { kind, turns, events, open, prompt, problems, deps } = raw;
  if (!isColumn(kind, count) || !isColumn(turns, count) || !isColumn(events, count) || !isColumn(open, count)) return;
  if (!isColumn(prompt, count) || !isRecord(problems) || !isRecord(deps)) return;
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i];
    if (entry === undefined) continue;
    const k = kind[i];
    const these = deps[i] === undefined ? [] : decodeDeps(deps[i]);
    if (these === undefined) continue;
    if (k === 1) {
      const facts = entry.header;
      const t = turns[i];
      const n = events[i];
      const o = open[i];
      const p = prompt[i];
      if (facts === undefined || facts === null || !isNumber(t) || !isNumber(n) || (o !== 0 && o !== 1)) continue;
      if (!(p === null || typeof p === "string")) continue;
      // Built whole, with the row's `updatedAt` (the identity's, which the listing checks): a
      // listing hands this very object on as the row of an unchanged log.
      const digest: Mutable<SessionDigest> = {
        id: facts.id,
        createdAt: facts.createdAt,
        turns: t,
        events: n,
        open: o === 1,
        updatedAt: Math.floor(entry.mtimeMs),
      };
      if (facts.cwd !== undefined) digest.cwd = facts.cwd;
      if (facts.parentSession !== undefined) digest.parentSession = facts.parentSession;
      if (p !== null) digest.lastPrompt = p;
      entry.digest = digest;
      // `header` stays (the same facts): a `delete` would make 10,000 entries slow dictionaries.
    } else if (k === 2) {
      const problem = problems[i];
      if (!isProblem(problem)) continue;
      entry.problem = {
        code: problem.code,
        message: problem.message,
        ...(problem.file === undefined ? {} : { file: problem.file }),
        ...(problem.line === undefined ? {} : { line: problem.line }),
      };
    } else continue;
    if (these.length > 0) entry.deps = these;
  }
}

/** Whether a value is a column: an array of `count` elements. */
const isColumn = (v: unknown, count: number): v is unknown[] => Array.isArray(v) && v.length === count;
