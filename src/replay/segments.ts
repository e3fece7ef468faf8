// Where a rebuilt request first differs from the logged one, walking the request in the order a
// provider caches it: the model (a change shares nothing), each tool (sorted by name), the
// structured-output schema (it prefixes the system prompt: OpenAI documents it, Anthropic and
// Bedrock behave so), the system prompt by line, each session-prefix message, each history
// message, then the call config's other keys (sampling: no effect on the cache). Besides the
// segment, how many leading cache blocks the two share (tools, system, prefix and history
// messages, one block each), which the cache cost reads.
//
// Equality is canonical (key order never matters), by a structural walk; a request's parts are
// frozen and shared with its neighbours, and a history is compared from where the previous
// request's check stopped, so comparing a whole replay looks at each message about once.
import { canonicalJson, type JsonValue, jsonEquals } from "../json/index.js";
import type { ToolSchema } from "../llm/core.js";
import type { Message } from "../messages/index.js";
import type { HistoryView, ReconstructedRequest } from "../reconstruct/index.js";
import type { DiffSegment } from "./types.js";

/** Canonical equality (key order never matters), by a structural walk (`jsonEquals`): no strings built. */
export class CanonicalEquality {
  same(a: unknown, b: unknown): boolean {
    return jsonEquals((a ?? null) as JsonValue, (b ?? null) as JsonValue);
  }
}

/** A request as cache blocks: its tools, system, prefix messages and history messages, in order. */
export interface BlockLayout {
  readonly tools: readonly ToolSchema[];
  readonly system: string | undefined;
  readonly prefix: readonly Message[];
  readonly history: readonly Message[];
}

/** A request's blocks (its history copied: for the cache cost of a differing request only). */
export function layoutOf(r: ReconstructedRequest): BlockLayout {
  return { ...headBlocks(r), history: r.history };
}

/** The blocks before the history, from the header (what `composeRequest` puts on the request). */
function headBlocks(r: ReconstructedRequest): Omit<BlockLayout, "history"> {
  const { tools, system, messagePrefix } = r.header;
  return { tools: tools ?? [], system: system === "" ? undefined : system, prefix: messagePrefix ?? [] };
}

export interface FirstDifference {
  readonly segment: DiffSegment;
  readonly logged: string | undefined;
  readonly replayed: string | undefined;
  /** Leading cache blocks the rebuilt request shares with the logged one. */
  readonly sharedBlocks: number;
  /** Other segments that differ too. */
  readonly also: readonly string[];
}

/**
 * The history arrays of the last pair compared (`historyView().messages`, shared by the requests
 * of one stretch of append-only history), so a history that only grew is checked from where the
 * last check stopped: each message is compared once per stretch, never copied.
 */
export interface PairMemo {
  logged?: readonly Message[];
  replayed?: readonly Message[];
  /** Leading messages of those arrays proven equal. */
  matched: number;
  /**
   * The last pair of headers found equal, by their parts (config, system, tools, prefix: frozen
   * event data, shared by every request between two header records), so an unchanged pair is
   * not walked again for each request.
   */
  sameHeads?: { readonly logged: EpochHeader; readonly replayed: EpochHeader };
}

type EpochHeader = ReconstructedRequest["header"];

const sameParts = (a: EpochHeader, b: EpochHeader): boolean =>
  a.config === b.config && a.system === b.system && a.tools === b.tools && a.messagePrefix === b.messagePrefix;

const EXCERPT = 160;
/** Characters kept before the first difference when an excerpt starts later. */
const LEAD = 40;

const textOf = (value: unknown): string =>
  typeof value === "string" ? value : value === undefined ? "(absent)" : canonicalJson(value as JsonValue);

/**
 * Both values as short text, each a window starting shortly before their first differing
 * character (so a change in the middle of a long message shows), `…` marking what is cut.
 */
export function excerpts(logged: unknown, replayed: unknown): { logged: string; replayed: string } {
  const a = textOf(logged);
  const b = textOf(replayed);
  let at = 0;
  while (at < a.length && at < b.length && a[at] === b[at]) at++;
  const from = at > EXCERPT - LEAD ? at - LEAD : 0;
  const cut = (text: string): string => {
    const window = text.slice(from, from + EXCERPT);
    return `${from > 0 ? "…" : ""}${window}${from + EXCERPT < text.length ? "…" : ""}`;
  };
  return { logged: cut(a), replayed: cut(b) };
}

/**
 * The first segment where `replayed` differs from `logged`, or undefined when they are the same
 * request. `contributorOf` names the contributor of a rebuilt prefix message.
 */
export function firstDifference(
  logged: ReconstructedRequest,
  replayed: ReconstructedRequest,
  eq: CanonicalEquality,
  memo: PairMemo,
  contributorOf: (message: Message) => string | undefined,
): FirstDifference | undefined {
  const a = headBlocks(logged);
  const b = headBlocks(replayed);
  const found: FirstDifference[] = [];
  const configA = logged.header.config;
  const configB = replayed.header.config;
  const heads = memo.sameHeads;
  const headsKnownSame =
    heads !== undefined && sameParts(heads.logged, logged.header) && sameParts(heads.replayed, replayed.header);
  if (!headsKnownSame) headDifferences();
  const base = a.tools.length + (a.system === undefined ? 0 : 1);
  const ha = logged.historyView();
  const hb = replayed.historyView();
  const history = historyDifference(ha, hb, eq, memo);
  const messageAt = (h: HistoryView, i: number): Message | undefined => (i < h.length ? h.messages[i] : undefined);
  if (history !== undefined)
    found.push(
      at(
        { kind: "history", index: history },
        messageAt(ha, history),
        messageAt(hb, history),
        base + a.prefix.length + history,
      ),
    );
  const key = headsKnownSame ? undefined : configDifference(configA, configB, eq);
  if (key !== undefined)
    found.push(at({ kind: "config", key }, configA[key], configB[key], base + a.prefix.length + ha.length));
  if (!headsKnownSame && key === undefined && (found.length === 0 || found[0]!.segment.kind === "history"))
    memo.sameHeads = { logged: logged.header, replayed: replayed.header };
  const [first, ...rest] = found;
  if (first === undefined) return undefined;
  return {
    ...first,
    sharedBlocks: Math.min(...found.map((f) => f.sharedBlocks)),
    also: rest.map((f) => segmentLabel(f.segment)),
  };

  /** Model, tools, output schema, system, prefix: the segments before the history. */
  function headDifferences(): void {
    if (configA.model !== configB.model)
      found.push(at({ kind: "config", key: "model" }, configA.model, configB.model, 0));
    const tools = toolDifference(a.tools, b.tools, eq);
    if (tools !== undefined) found.push(tools);
    if (!eq.same(configA.output, configB.output))
      found.push(at({ kind: "config", key: "output" }, configA.output, configB.output, a.tools.length));
    const system = systemDifference(a.system, b.system, a.tools.length);
    if (system !== undefined) found.push(system);
    const prefix = messagesDifference(a.prefix, b.prefix, eq, 0);
    if (prefix !== undefined) {
      const message = b.prefix[prefix];
      const contributor = message === undefined ? undefined : contributorOf(message);
      found.push(
        at(
          { kind: "prefix", index: prefix, ...(contributor === undefined ? {} : { contributor }) },
          a.prefix[prefix],
          message,
          a.tools.length + (a.system === undefined ? 0 : 1) + prefix,
        ),
      );
    }
  }
}

function at(segment: DiffSegment, logged: unknown, replayed: unknown, sharedBlocks: number): FirstDifference {
  return { segment, ...excerpts(logged, replayed), sharedBlocks, also: [] };
}

/** Tools are sorted by name: the first name that differs, or the first schema that does. */
function toolDifference(
  a: readonly ToolSchema[],
  b: readonly ToolSchema[],
  eq: CanonicalEquality,
): FirstDifference | undefined {
  if (a === b) return undefined;
  const n = Math.max(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a[i];
    const y = b[i];
    if (x !== undefined && y !== undefined && x.name === y.name) {
      if (eq.same(x, y)) continue;
      const path = firstPath(x as unknown as JsonValue, y as unknown as JsonValue, eq, x.name);
      return at({ kind: "tool", name: x.name, change: "changed", path: path.path }, path.logged, path.replayed, i);
    }
    // sorted lists: the smaller name is the one the other side lacks
    if (y === undefined || (x !== undefined && x.name < y.name))
      return at({ kind: "tool", name: x!.name, change: "removed" }, x, undefined, i);
    return at({ kind: "tool", name: y.name, change: "added" }, undefined, y, i);
  }
  return undefined;
}

/** The first JSON path (`read.inputSchema.properties.encoding`) where two values differ, and the values there. */
function firstPath(
  a: JsonValue | undefined,
  b: JsonValue | undefined,
  eq: CanonicalEquality,
  path: string,
): { path: string; logged: unknown; replayed: unknown } {
  const objects =
    typeof a === "object" && a !== null && typeof b === "object" && b !== null && Array.isArray(a) === Array.isArray(b);
  if (!objects) return { path, logged: a, replayed: b };
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
  for (const key of keys) {
    const x = (a as Record<string, JsonValue>)[key];
    const y = (b as Record<string, JsonValue>)[key];
    if (x !== undefined && y !== undefined && eq.same(x, y)) continue;
    return firstPath(x, y, eq, Array.isArray(a) ? `${path}[${key}]` : `${path}.${key}`);
  }
  return { path, logged: a, replayed: b };
}

function systemDifference(a: string | undefined, b: string | undefined, tools: number): FirstDifference | undefined {
  if (a === b) return undefined;
  const la = (a ?? "").split("\n");
  const lb = (b ?? "").split("\n");
  let line = 0;
  while (line < la.length && line < lb.length && la[line] === lb[line]) line++;
  // from the first differing line on, as a JSON string (so a blank or added line shows)
  const rest = (lines: string[]): string =>
    line < lines.length ? JSON.stringify(lines.slice(line).join("\n")) : "(ends before this line)";
  return at({ kind: "system", line: line + 1 }, rest(la), rest(lb), tools);
}

/** The first index where two message lists differ (a length difference counts), or undefined. */
function messagesDifference(
  a: readonly Message[],
  b: readonly Message[],
  eq: CanonicalEquality,
  from: number,
  lengths: { readonly a: number; readonly b: number } = { a: a.length, b: b.length },
): number | undefined {
  if (a === b && lengths.a === lengths.b) return undefined;
  const n = Math.min(lengths.a, lengths.b);
  let i = from;
  while (i < n && eq.same(a[i], b[i])) i++;
  return i === lengths.a && i === lengths.b ? undefined : i;
}

/**
 * The history's first difference, starting where the previous pair's check stopped when both
 * histories still sit on the same arrays (an append-only stretch: the messages below are those
 * very objects).
 */
function historyDifference(a: HistoryView, b: HistoryView, eq: CanonicalEquality, memo: PairMemo): number | undefined {
  const same = memo.logged === a.messages && memo.replayed === b.messages;
  const from = same ? Math.min(memo.matched, a.length, b.length) : 0;
  const diff = messagesDifference(a.messages, b.messages, eq, from, { a: a.length, b: b.length });
  memo.logged = a.messages;
  memo.replayed = b.messages;
  memo.matched = diff ?? Math.min(a.length, b.length);
  return diff;
}

/** The first call-config key (sorted, `model` and `output` aside) whose value differs. */
function configDifference(
  a: Readonly<Record<string, unknown>>,
  b: Readonly<Record<string, unknown>>,
  eq: CanonicalEquality,
): string | undefined {
  if (a === b) return undefined;
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((k) => k !== "model" && k !== "output");
  return keys.sort().find((k) => a[k] === undefined || b[k] === undefined || !eq.same(a[k], b[k]));
}

/** `system line 3`, `tool read (changed at read.inputSchema.properties.encoding)`, `prefix message 0 (skillsCatalog)`, … */
export function segmentLabel(segment: DiffSegment): string {
  switch (segment.kind) {
    case "config":
      return `config ${segment.key}`;
    case "tool":
      return `tool ${segment.name} (${segment.change}${segment.path === undefined ? "" : ` at ${segment.path}`})`;
    case "system":
      return `system line ${segment.line}`;
    case "prefix":
      return `prefix message ${segment.index}${segment.contributor === undefined ? "" : ` (contributor ${segment.contributor})`}`;
    case "history":
      return `history message ${segment.index}`;
    case "missing":
      return "request missing from the replay";
    case "extra":
      return "request the log does not have";
  }
}
