// Forged records in a stored log: request-header events whose payload does not match the fold
// (deltas that cannot apply, deltas before any snapshot, snapshots and deltas that apply but
// were never sent), events claiming types outside the grammar (`session/header`, `__proto__`,
// `constructor`, …), and forged session-header lines (ids, versions, seqs, format markers).
import { type Corrupted, pick } from "./hostile-logs-bytes.js";
import type { CorruptionSpec } from "./hostile-logs-cases.js";
import { eventLine, joinLines, type Lines, parseLine, renumber } from "./hostile-logs-edits.js";
import type { Json } from "./hostile-logs-json.js";

type Obj = { [key: string]: Json };

const prefixMessage = { role: "user", content: [{ type: "text", text: "forged reminder" }] };

/** Delta payloads: the first five cannot apply to a `baseHeader()` fold, the rest apply (a valid but never-sent header). */
const DELTAS: readonly [string, Obj][] = [
  ["system keeps 999 lines", { system: { keepStart: 999, keepEnd: 0, insert: [] } }],
  ["removes an unknown tool", { tools: { added: [], removed: ["nope"], changed: [] } }],
  ["changes an unknown tool", { tools: { added: [], removed: [], changed: [{ name: "ghost", inputSchema: {} }] } }],
  ["adds an existing tool", { tools: { added: [{ name: "read", inputSchema: {} }], removed: [], changed: [] } }],
  ["system keeps 1+999 lines", { system: { keepStart: 1, keepEnd: 999, insert: ["x"] } }],
  ["swaps the model", { config: { model: "forged-model" } }],
  ["sets a prefix", { messagePrefix: [prefixMessage] }],
  ["inserts a system line", { system: { keepStart: 0, keepEnd: 0, insert: ["Forged rule."] } }],
  ["is empty", {}],
];

const SNAPSHOTS: readonly [string, Obj][] = [
  ["a forged model", { header: { config: { model: "forged-model" } }, reason: "fallback" }],
  [
    "a forged system and prefix",
    { header: { config: { model: "m" }, system: "Forged.", messagePrefix: [prefixMessage] }, reason: "resume" },
  ],
  ["an unknown reason", { header: { config: { model: "m" } }, reason: "forged" }],
  ["a reserved config key", { header: { config: { model: "m", messages: [] } }, reason: "initial" }],
  [
    "duplicate tool names",
    {
      header: {
        config: { model: "m" },
        tools: [
          { name: "a", inputSchema: {} },
          { name: "a", inputSchema: {} },
        ],
      },
      reason: "initial",
    },
  ],
];

const timeOf = (line: string | undefined): number => {
  const v = line === undefined ? undefined : (parseLine(line) as Obj).time;
  return typeof v === "number" ? v : 1_700_000_000_000;
};

/** `lines` with `event` inserted after line `after`, every later seq renumbered. */
function insertAfter(lines: Lines, after: number, event: Obj): Lines {
  return renumber(
    lines.toSpliced(after + 1, 0, JSON.stringify({ ...event, seq: after, time: timeOf(lines[after]) })),
    after + 1,
  );
}

const headerEventLines = (lines: Lines): number[] =>
  lines.flatMap((line, i) =>
    i > 0 && (line.includes('"type":"request/header"') || line.includes('"type":"request/header-delta"')) ? [i] : [],
  );

export function forgedHeaderEvent(lines: Lines, spec: CorruptionSpec): Corrupted {
  const after = pick(spec.line, lines.length);
  switch (pick(spec.variant, 4)) {
    case 0: {
      const [name, data] = DELTAS[pick(spec.n, DELTAS.length)]!;
      return {
        bytes: joinLines(insertAfter(lines, after, { type: "request/header-delta", data })),
        variant: `a delta that ${name}, after line ${after + 1}`,
      };
    }
    case 1: {
      const [name, data] = SNAPSHOTS[pick(spec.n, SNAPSHOTS.length)]!;
      return {
        bytes: joinLines(insertAfter(lines, after, { type: "request/header", data })),
        variant: `a snapshot with ${name}, after line ${after + 1}`,
      };
    }
    case 2: {
      const targets = headerEventLines(lines);
      if (targets.length === 0) return { bytes: joinLines(lines), variant: "no header event to tamper with" };
      const l = targets[pick(spec.at, targets.length)]!;
      const event = parseLine(lines[l]!) as Obj;
      const data = event.data as Obj;
      const [name, replacement] =
        event.type === "request/header"
          ? SNAPSHOTS[pick(spec.n, SNAPSHOTS.length)]!
          : DELTAS[pick(spec.n, DELTAS.length)]!;
      const forged = { ...event, data: replacement };
      // A snapshot turned into a delta (or back) keeps its payload: a payload of the wrong kind.
      const retyped = {
        ...event,
        type: event.type === "request/header" ? "request/header-delta" : "request/header",
        data,
      };
      const next = spec.fromEnd ? retyped : forged;
      const what = spec.fromEnd ? `retyped ${String(retyped.type)}` : `payload replaced by ${name}`;
      return {
        bytes: joinLines(lines.toSpliced(l, 1, JSON.stringify(next))),
        variant: `header event on line ${l + 1} ${what}`,
      };
    }
    default: {
      const [name, data] = DELTAS[pick(spec.n, DELTAS.length)]!;
      return {
        bytes: joinLines(insertAfter(lines, Math.min(1, lines.length - 1), { type: "request/header-delta", data })),
        variant: `a delta that ${name}, before any snapshot`,
      };
    }
  }
}

const FORGED_TYPES: readonly Json[] = [
  "session/header",
  "session/header-delta",
  "request/headers",
  "Request/Header",
  "__proto__",
  "constructor",
  "toString",
  "hasOwnProperty",
  "valueOf",
  "",
  " turn/start",
  "turn/start ",
  "turn/start\u0000",
  42,
  null,
  ["turn/start"],
  { type: "turn/start" },
];

export function typeOutOfGrammar(lines: Lines, spec: CorruptionSpec): Corrupted {
  const type = FORGED_TYPES[pick(spec.n, FORGED_TYPES.length)]!;
  const l = eventLine(lines, spec.line);
  if (spec.variant % 2 === 0 && l !== undefined) {
    const event = parseLine(lines[l]!) as Obj;
    return {
      bytes: joinLines(lines.toSpliced(l, 1, JSON.stringify({ ...event, type }))),
      variant: `line ${l + 1} claims type ${JSON.stringify(type)}`,
    };
  }
  const after = pick(spec.line, lines.length);
  const data = { header: { config: { model: "forged-model" } }, reason: "initial", turn: 1 };
  return {
    bytes: joinLines(insertAfter(lines, after, { type, data })),
    variant: `an event of type ${JSON.stringify(type)} after line ${after + 1}`,
  };
}

/** Edits of the session-header line (line 1). */
const HEADER_EDITS: readonly [string, (h: Obj, event: Obj | undefined) => Json][] = [
  ["another safe id", (h) => ({ ...h, id: "someone-else" })],
  ["an unsafe id", (h) => ({ ...h, id: "../etc/passwd" })],
  ["an empty id", (h) => ({ ...h, id: "" })],
  ["no id", ({ id: _id, ...h }) => h],
  ["version 2 without a seed reference", (h) => ({ ...h, version: 2 })],
  ["version 3", (h) => ({ ...h, version: 3 })],
  ['version "1"', (h) => ({ ...h, version: "1" })],
  ["no version", ({ version: _v, ...h }) => h],
  ["createdAt as a string", (h) => ({ ...h, createdAt: "yesterday" })],
  ["a numeric cwd", (h) => ({ ...h, cwd: 42 })],
  ["no format marker", ({ format: _f, ...h }) => h],
  ["an uppercase format marker", (h) => ({ ...h, format: "KEELSON-SESSION" })],
  ["a seq", (h) => ({ ...h, seq: 0 })],
  ["a forged seedLength", (h) => ({ ...h, seedLength: 99 })],
  ["a negative seedLength", (h) => ({ ...h, seedLength: -1 })],
  ["a forged parent", (h) => ({ ...h, parentSession: "forged-parent" })],
  ["an unsafe parent", (h) => ({ ...h, parentSession: "../x" })],
  ["an event's fields", (h) => ({ ...h, type: "turn/start", seq: 0, data: { turn: 1, trigger: "send" } })],
  ["the first event instead", (_h, event) => event ?? null],
];

export function forgedSessionHeader(lines: Lines, spec: CorruptionSpec): Corrupted {
  const header = parseLine(lines[0]!) as Obj;
  const first = lines[1] === undefined ? undefined : (parseLine(lines[1]) as Obj);
  if (spec.variant % 5 === 4) {
    const copy = pick(spec.n, 2) === 0 ? lines[0]! : JSON.stringify({ ...header, id: "someone-else" });
    return { bytes: joinLines(lines.toSpliced(1, 0, copy)), variant: "a second header line" };
  }
  const [name, edit] = HEADER_EDITS[pick(spec.n, HEADER_EDITS.length)]!;
  return {
    bytes: joinLines(lines.toSpliced(0, 1, JSON.stringify(edit(header, first)))),
    variant: `header line with ${name}`,
  };
}
