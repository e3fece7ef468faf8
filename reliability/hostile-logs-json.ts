// JSON plumbing for the hostile-logs corruptions: a serializer whose spelling can vary without
// changing the value (spaces, key order, \u escapes, number forms — the no-op rewrites), the
// paths of a parsed line, and writes that keep keys such as `__proto__` as own data (assignment
// would set a prototype instead). Works on the harness's own parsed copies, never on loaded data.

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonPath = readonly (string | number)[];

const isObject = (v: Json): v is { [key: string]: Json } => typeof v === "object" && v !== null && !Array.isArray(v);

export interface Spelling {
  /** A space after every `:` and `,`, and around the whole value. */
  readonly spaces?: boolean;
  /** Object keys in reverse order. */
  readonly reverseKeys?: boolean;
  /** Every non-ASCII character, and `/`, as an escape. */
  readonly escapes?: boolean;
  /** Integers written as `N.0` or `Ne0`. */
  readonly numbers?: "fraction" | "exponent";
}

function spellString(s: string, escapes: boolean): string {
  const plain = JSON.stringify(s);
  if (!escapes) return plain;
  let out = "";
  for (const ch of plain) {
    const code = ch.codePointAt(0)!;
    if (ch === "/") out += "\\/";
    else if (code < 0x80) out += ch;
    else for (let i = 0; i < ch.length; i++) out += `\\u${ch.charCodeAt(i).toString(16).padStart(4, "0")}`;
  }
  return out;
}

function spellNumber(n: number, form: Spelling["numbers"]): string {
  if (!Number.isInteger(n) || form === undefined) return JSON.stringify(n);
  return form === "fraction" ? `${n}.0` : `${n}e0`;
}

/** The JSON text of `v` in the given spelling; JSON.parse reads back the same value. */
export function spell(v: Json, how: Spelling = {}): string {
  const sep = how.spaces ? ", " : ",";
  const colon = how.spaces ? ": " : ":";
  const walk = (x: Json): string => {
    if (x === null || typeof x === "boolean") return JSON.stringify(x);
    if (typeof x === "number") return spellNumber(x, how.numbers);
    if (typeof x === "string") return spellString(x, how.escapes === true);
    if (Array.isArray(x)) return `[${x.map(walk).join(sep)}]`;
    const keys = Object.keys(x);
    if (how.reverseKeys) keys.reverse();
    return `{${keys.map((k) => `${spellString(k, how.escapes === true)}${colon}${walk(x[k]!)}`).join(sep)}}`;
  };
  return how.spaces ? ` ${walk(v)}\t` : walk(v);
}

/** Defines `key` on `obj` as an own enumerable data property (safe for `__proto__`). */
export function defineOwn(obj: { [key: string]: Json }, key: string, value: Json): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Every path below the root of `v`, parents before children (bounded by the value's size). */
export function pathsOf(v: Json, base: JsonPath = []): JsonPath[] {
  const out: JsonPath[] = [];
  const children: [string | number, Json][] = Array.isArray(v)
    ? v.map((x, i) => [i, x])
    : isObject(v)
      ? Object.entries(v)
      : [];
  for (const [k, child] of children) {
    const path = [...base, k];
    out.push(path, ...pathsOf(child, path));
  }
  return out;
}

/** The paths (root included) whose value is an object. */
export function objectPathsOf(v: Json): JsonPath[] {
  return [[], ...pathsOf(v)].filter((p) => isObject(getAt(v, p)));
}

/** The paths whose value is a string. */
export function stringPathsOf(v: Json): JsonPath[] {
  return pathsOf(v).filter((p) => typeof getAt(v, p) === "string");
}

export function getAt(v: Json, path: JsonPath): Json {
  let x: Json = v;
  for (const k of path) x = (x as Record<string | number, Json>)[k]!;
  return x;
}

/** Sets (or, with `undefined`, removes) the value at a non-root path, in place. */
export function setAt(v: Json, path: JsonPath, value: Json | undefined): void {
  const parent = getAt(v, path.slice(0, -1)) as Record<string | number, Json>;
  const key = path.at(-1)!;
  if (Array.isArray(parent)) {
    if (value === undefined) parent.splice(key as number, 1);
    else parent[key as number] = value;
  } else if (value === undefined) {
    delete parent[key];
  } else {
    defineOwn(parent, String(key), value);
  }
}

/** A copy of `obj` with key `from` renamed to `to`, in the same position. */
export function renameKey(obj: { [key: string]: Json }, from: string, to: string): { [key: string]: Json } {
  const out: { [key: string]: Json } = {};
  for (const [k, value] of Object.entries(obj)) defineOwn(out, k === from ? to : k, value);
  return out;
}

export const typeOf = (v: Json): string => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v);
