// Line- and JSON-level corruptions of a stored log: duplicated / missing / reordered / forged
// seqs, wrong types in fields, `__proto__` / `constructor` / `prototype` keys at any depth, huge
// strings, deep nesting, and the no-op rewrites (same values, different spelling). Each works
// on the file's lines (header first) and returns the corrupted bytes and the variant's name.
import { type Corrupted, filler, lineSpans, pick } from "./hostile-logs-bytes.js";
import type { CorruptionSpec } from "./hostile-logs-cases.js";
import {
  defineOwn,
  getAt,
  type Json,
  objectPathsOf,
  pathsOf,
  renameKey,
  type Spelling,
  setAt,
  spell,
  stringPathsOf,
  typeOf,
} from "./hostile-logs-json.js";

export type Lines = string[];

export const parseLine = (line: string): Json => JSON.parse(line) as Json;

/**
 * Raw JSON text no value serializes to (`-0`, `1e999`, nesting too deep to stringify): put
 * `marker` where it goes, serialize, then `patch` the text.
 */
export function rawText(raw: string): { marker: string; patch: (text: string) => string } {
  const marker = `@@raw-${raw.length}-${raw.slice(0, 8)}@@`;
  return { marker, patch: (text) => text.replace(JSON.stringify(marker), () => raw) };
}

/** The lines as a file, every line "\n"-terminated. */
export const joinLines = (lines: Lines, eol = "\n"): Buffer => Buffer.from(lines.map((l) => l + eol).join(""));

/** Splits an original (valid, "\n"-terminated) file into its lines. */
export const splitLines = (bytes: Buffer): Lines =>
  lineSpans(bytes).map((s) => bytes.toString("utf8", s.start, s.start + s.length));

/** Line index of an event (1..), or undefined when the log has no events. */
export const eventLine = (lines: Lines, n: number): number | undefined =>
  lines.length < 2 ? undefined : 1 + pick(n, lines.length - 1);

/** Rewrites the seq of every event line from `from` on so that seq equals index again. */
export function renumber(lines: Lines, from = 1): Lines {
  return lines.map((line, i) => {
    if (i < Math.max(from, 1)) return line;
    const event = parseLine(line);
    if (typeof event !== "object" || event === null || Array.isArray(event)) return line;
    event.seq = i - 1;
    return JSON.stringify(event);
  });
}

const unchanged = (lines: Lines, why: string): Corrupted => ({ bytes: joinLines(lines), variant: why });

export function seqDuplicate(lines: Lines, spec: CorruptionSpec): Corrupted {
  const l = eventLine(lines, spec.line);
  if (l === undefined) return unchanged(lines, "no events to duplicate");
  const copy = lines[l]!;
  switch (pick(spec.variant, 3)) {
    case 0:
      return { bytes: joinLines(lines.toSpliced(l + 1, 0, copy)), variant: `line ${l + 1} twice` };
    case 1:
      return { bytes: joinLines([...lines, copy]), variant: `line ${l + 1} again at the end` };
    default:
      return {
        bytes: joinLines(renumber(lines.toSpliced(l + 1, 0, copy), l + 1)),
        variant: `line ${l + 1} twice, later seqs renumbered`,
      };
  }
}

export function seqMissing(lines: Lines, spec: CorruptionSpec): Corrupted {
  const l = eventLine(lines, spec.line);
  if (l === undefined) return unchanged(lines, "no events to drop");
  switch (pick(spec.variant, 3)) {
    case 0:
      return { bytes: joinLines(lines.toSpliced(l, 1)), variant: `line ${l + 1} dropped` };
    case 1:
      return {
        bytes: joinLines(renumber(lines.toSpliced(l, 1), l)),
        variant: `line ${l + 1} dropped, later seqs renumbered`,
      };
    default:
      return { bytes: joinLines(lines.slice(0, -1)), variant: "last line dropped" };
  }
}

export function seqReorder(lines: Lines, spec: CorruptionSpec): Corrupted {
  const a = eventLine(lines, spec.line);
  const b = eventLine(lines, spec.line2);
  if (a === undefined || b === undefined) return unchanged(lines, "no events to reorder");
  const swapped = lines.slice();
  swapped[a] = lines[b]!;
  swapped[b] = lines[a]!;
  const moved = [...lines.toSpliced(a, 1), lines[a]!];
  switch (pick(spec.variant, 5)) {
    case 0:
      return { bytes: joinLines(swapped), variant: `lines ${a + 1} and ${b + 1} swapped` };
    case 1:
      return { bytes: joinLines(renumber(swapped)), variant: `lines ${a + 1} and ${b + 1} swapped, seqs renumbered` };
    case 2:
      return { bytes: joinLines(moved), variant: `line ${a + 1} moved to the end` };
    case 3:
      return { bytes: joinLines(renumber(moved)), variant: `line ${a + 1} moved to the end, seqs renumbered` };
    default:
      return {
        bytes: joinLines(renumber([lines[0]!, ...lines.slice(1).reverse()])),
        variant: "events reversed, seqs renumbered",
      };
  }
}

/** Line `l` parsed, edited and serialized again. */
function rewrite(lines: Lines, l: number, edit: (v: Json) => Json): Lines {
  return lines.toSpliced(l, 1, JSON.stringify(edit(parseLine(lines[l]!))));
}

export function seqForge(lines: Lines, spec: CorruptionSpec): Corrupted {
  const l = eventLine(lines, spec.line);
  if (l === undefined) return unchanged(lines, "no events to forge");
  const seq = l - 1;
  const forged: readonly [string, Json | undefined, string?][] = [
    ["the previous seq", seq - 1],
    ["the next seq", seq + 1],
    ["-1", -1],
    ["1.5", seq + 0.5],
    ["a string", String(seq)],
    ["null", null],
    ["2^53", 2 ** 53],
    ["true", true],
    ["no seq", undefined],
    ["1e999", 0, "1e999"],
    ["-0", 0, "-0"],
  ];
  const [name, value, raw] = forged[pick(spec.variant, forged.length)]!;
  const text = raw === undefined ? undefined : rawText(raw);
  const patched = rewrite(lines, l, (v) => {
    const event = v as { [k: string]: Json };
    if (value === undefined) delete event.seq;
    else event.seq = text?.marker ?? value;
    return event;
  });
  if (text !== undefined) patched[l] = text.patch(patched[l]!);
  return { bytes: joinLines(patched), variant: `seq on line ${l + 1} set to ${name}` };
}

const OTHER_VALUES: readonly Json[] = [0, 1, -1, 1.5, "", "x", true, false, null, [], {}, ["x"], { x: 1 }];

/** Number literals JSON.parse reads lossily or as a non-lossless value (-0, ±Infinity, an underflow to 0, a rounded integer). */
const RAW_NUMBERS = ["-0", "1e999", "-1e999", "1e-999", "123456789012345678901234567890"];

/**
 * Replaces a value anywhere in a line (the header line too) with one of another type, drops it,
 * or writes a raw number literal at it — or as an extra key of some object, where the grammar
 * takes any value.
 */
export function wrongType(lines: Lines, spec: CorruptionSpec): Corrupted {
  const l = pick(spec.line, lines.length);
  const value = parseLine(lines[l]!);
  const paths = pathsOf(value);
  if (paths.length === 0) return unchanged(lines, "nothing to retype");
  const path = paths[pick(spec.at, paths.length)]!;
  const where = `line ${l + 1} at ${path.join(".")}`;
  const mode = pick(spec.variant, 6);
  if (mode === 3) {
    setAt(value, path, undefined);
    return { bytes: joinLines(lines.toSpliced(l, 1, JSON.stringify(value))), variant: `${where} removed` };
  }
  if (mode >= 4) {
    const raw = RAW_NUMBERS[pick(spec.n, RAW_NUMBERS.length)]!;
    const { marker, patch } = rawText(raw);
    if (mode === 4) {
      setAt(value, path, marker);
      return {
        bytes: joinLines(lines.toSpliced(l, 1, patch(JSON.stringify(value)))),
        variant: `${where} set to ${raw}`,
      };
    }
    const objects = objectPathsOf(value);
    const target = objects[pick(spec.at, objects.length)]!;
    defineOwn(getAt(value, target) as { [key: string]: Json }, "extra", marker);
    return {
      bytes: joinLines(lines.toSpliced(l, 1, patch(JSON.stringify(value)))),
      variant: `line ${l + 1}: extra key ${raw} at ${target.length === 0 ? "the root" : target.join(".")}`,
    };
  }
  const current = typeOf(getAt(value, path));
  const others = OTHER_VALUES.filter((v) => typeOf(v) !== current);
  const next = others[pick(spec.n, others.length)]!;
  setAt(value, path, structuredClone(next));
  return {
    bytes: joinLines(lines.toSpliced(l, 1, JSON.stringify(value))),
    variant: `${where} (${current}) set to ${JSON.stringify(next)}`,
  };
}

function protoPayloads(): readonly Json[] {
  const ownProto: { [key: string]: Json } = {};
  defineOwn(ownProto, "__proto__", { polluted: "hostile" });
  return [
    { polluted: "hostile" },
    { prototype: { polluted: "hostile" } },
    ownProto,
    { constructor: { prototype: { polluted: "hostile" } } },
    null,
    "hostile",
    1,
    [],
    { toString: "hostile", valueOf: 1, hasOwnProperty: null },
  ];
}

const PROTO_KEYS = ["__proto__", "constructor", "prototype"];

/** `__proto__` / `constructor` / `prototype` as own keys (raw JSON text) in any object of any line. */
export function protoKeys(lines: Lines, spec: CorruptionSpec): Corrupted {
  const l = pick(spec.line, lines.length);
  const value = parseLine(lines[l]!);
  const objects = objectPathsOf(value);
  const path = objects[pick(spec.at, objects.length)]!;
  const key = PROTO_KEYS[pick(spec.n, PROTO_KEYS.length)]!;
  const target = getAt(value, path) as { [key: string]: Json };
  const where = `line ${l + 1} at ${path.length === 0 ? "the root" : path.join(".")}`;
  if (pick(spec.variant, 4) === 3 && Object.keys(target).length > 0) {
    const keys = Object.keys(target);
    const from = keys[pick(spec.n, keys.length)]!;
    const renamed = renameKey(target, from, key);
    if (path.length > 0) setAt(value, path, renamed);
    const next = path.length === 0 ? renamed : value;
    return {
      bytes: joinLines(lines.toSpliced(l, 1, JSON.stringify(next))),
      variant: `${where}: key ${from} renamed ${key}`,
    };
  }
  const payloads = protoPayloads();
  const payload = payloads[pick(spec.variant, payloads.length)]!;
  defineOwn(target, key, payload);
  return {
    bytes: joinLines(lines.toSpliced(l, 1, JSON.stringify(value))),
    variant: `${where}: ${key} = ${JSON.stringify(payload)}`,
  };
}

/** MiB-sized strings as values, keys, whole lines and event types (the torn-tail variant is byte-level). */
export function hugeString(lines: Lines, spec: CorruptionSpec): Corrupted {
  const l = eventLine(lines, spec.line) ?? 0;
  const value = parseLine(lines[l]!);
  const huge = filler(spec, spec.variant % 2 === 1);
  const mib = `${(Buffer.byteLength(huge) / 2 ** 20).toFixed(1)} MiB`;
  switch (pick(spec.variant >> 1, 4)) {
    case 0: {
      const strings = stringPathsOf(value);
      if (strings.length === 0) return unchanged(lines, "no string to grow");
      const path = strings[pick(spec.at, strings.length)]!;
      setAt(value, path, huge);
      return {
        bytes: joinLines(lines.toSpliced(l, 1, JSON.stringify(value))),
        variant: `line ${l + 1} at ${path.join(".")} set to ${mib}`,
      };
    }
    case 1: {
      const objects = objectPathsOf(value);
      const path = objects[pick(spec.at, objects.length)]!;
      defineOwn(getAt(value, path) as { [key: string]: Json }, huge, 1);
      return { bytes: joinLines(lines.toSpliced(l, 1, JSON.stringify(value))), variant: `line ${l + 1}: a ${mib} key` };
    }
    case 2:
      return {
        bytes: joinLines(lines.toSpliced(l + 1, 0, huge)),
        variant: `a ${mib} non-JSON line after line ${l + 1}`,
      };
    default: {
      if (l === 0) return unchanged(lines, "no event to retype");
      (value as { [key: string]: Json }).type = huge;
      return {
        bytes: joinLines(lines.toSpliced(l, 1, JSON.stringify(value))),
        variant: `line ${l + 1}: a ${mib} event type`,
      };
    }
  }
}

const DEPTHS = [64, 400, 500, 600, 1000, 5000, 20_000];

/** A deeply nested array or object as an extra key of some object of an event line. */
export function deepNesting(lines: Lines, spec: CorruptionSpec): Corrupted {
  const l = eventLine(lines, spec.line);
  if (l === undefined) return unchanged(lines, "no events to nest into");
  const value = parseLine(lines[l]!);
  const objects = objectPathsOf(value);
  const path = objects[pick(spec.at, objects.length)]!;
  const depth = DEPTHS[pick(spec.n, DEPTHS.length)]!;
  const arrays = spec.variant % 2 === 0;
  const raw = arrays ? `${"[".repeat(depth)}${"]".repeat(depth)}` : `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
  const { marker, patch } = rawText(raw);
  defineOwn(getAt(value, path) as { [key: string]: Json }, "nested", marker);
  const where = path.length === 0 ? "the root" : path.join(".");
  return {
    bytes: joinLines(lines.toSpliced(l, 1, patch(JSON.stringify(value)))),
    variant: `line ${l + 1} at ${where}: ${arrays ? "arrays" : "objects"} nested ${depth} deep`,
  };
}

const SPELLINGS: readonly [string, Spelling][] = [
  ["spaces", { spaces: true }],
  ["keys reversed", { reverseKeys: true }],
  ["\\u escapes", { escapes: true }],
  ["integers as N.0", { numbers: "fraction" }],
  ["integers as Ne0", { numbers: "exponent" }],
  ["every spelling", { spaces: true, reverseKeys: true, escapes: true, numbers: "exponent" }],
];

/** Rewrites that keep every value: the load must be identical. */
export function noop(lines: Lines, spec: CorruptionSpec): Corrupted {
  const mode = pick(spec.variant, SPELLINGS.length + 3);
  if (mode === SPELLINGS.length) return unchanged(lines, "nothing changed");
  if (mode === SPELLINGS.length + 1) return { bytes: joinLines(lines, "\r\n"), variant: "CRLF line ends" };
  if (mode === SPELLINGS.length + 2) {
    const [name, how] = SPELLINGS[pick(spec.n, SPELLINGS.length)]!;
    return {
      bytes: joinLines(lines.map((line) => spell(parseLine(line), how))),
      variant: `every line respelled (${name})`,
    };
  }
  const [name, how] = SPELLINGS[mode]!;
  const l = pick(spec.line, lines.length);
  return {
    bytes: joinLines(lines.toSpliced(l, 1, spell(parseLine(lines[l]!), how))),
    variant: `line ${l + 1} respelled (${name})`,
  };
}
