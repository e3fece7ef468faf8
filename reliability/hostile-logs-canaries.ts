// Prototype-pollution canaries and the inspection of loaded values for the hostile-logs suite.
// `PrototypeCanary` snapshots the built-in prototypes before a case and reports any property
// added, removed or replaced after it (and `({}).polluted`-style reads). `inspectLoaded` walks a
// loaded value (iteratively: it may be deep) and reports inherited surprises — a prototype other
// than Object.prototype / Array.prototype, an accessor where data belongs, an unfrozen object —
// and values that are not lossless JSON (non-finite numbers, -0).

const WATCHED: readonly [string, object][] = [
  ["Object.prototype", Object.prototype],
  ["Array.prototype", Array.prototype],
  ["String.prototype", String.prototype],
  ["Number.prototype", Number.prototype],
  ["Function.prototype", Function.prototype],
];

/** The keys the corruptions try to plant (see hostile-logs-edits.ts / protoKeys). */
const CANARY_KEYS = ["polluted", "hostile", "nested", "a", "x"];

type Descriptors = Map<string | symbol, PropertyDescriptor>;

const describeAll = (o: object): Descriptors =>
  new Map(Reflect.ownKeys(o).map((k) => [k, Object.getOwnPropertyDescriptor(o, k)!]));

function sameDescriptor(a: PropertyDescriptor, b: PropertyDescriptor): boolean {
  return (
    a.value === b.value &&
    a.get === b.get &&
    a.set === b.set &&
    a.writable === b.writable &&
    a.enumerable === b.enumerable &&
    a.configurable === b.configurable
  );
}

export class PrototypeCanary {
  readonly #before: readonly [string, object, Descriptors, boolean][];

  constructor() {
    this.#before = WATCHED.map(([name, proto]) => [name, proto, describeAll(proto), Object.isExtensible(proto)]);
  }

  /** What changed on the watched prototypes since construction (empty when nothing did). */
  changes(): string[] {
    const out: string[] = [];
    for (const [name, proto, before, extensible] of this.#before) {
      const after = describeAll(proto);
      for (const [key, d] of after) {
        const old = before.get(key);
        if (old === undefined) out.push(`${name}.${String(key)} was added`);
        else if (!sameDescriptor(old, d)) out.push(`${name}.${String(key)} was replaced`);
      }
      for (const key of before.keys()) if (!after.has(key)) out.push(`${name}.${String(key)} was removed`);
      if (Object.isExtensible(proto) !== extensible) out.push(`${name} extensibility changed`);
      if (Object.getPrototypeOf(proto) !== (proto === Object.prototype ? null : Object.prototype))
        out.push(`${name} got a new prototype`);
    }
    const probe: Record<string, unknown> = {};
    for (const key of CANARY_KEYS) if (probe[key] !== undefined || key in []) out.push(`({}).${key} is inherited`);
    return out;
  }
}

/**
 * Problems in a loaded value, at most `limit` of them: the value and everything reachable must
 * be plain (Object.prototype or Array.prototype), data properties only, frozen when `frozen`,
 * and lossless JSON.
 */
export function inspectLoaded(root: unknown, where: string, options: { frozen: boolean; limit?: number }): string[] {
  const problems: string[] = [];
  const limit = options.limit ?? 5;
  const stack: [unknown, string][] = [[root, where]];
  const seen = new Set<object>();
  while (stack.length > 0 && problems.length < limit) {
    const [v, path] = stack.pop()!;
    if (typeof v === "number") {
      if (!Number.isFinite(v)) problems.push(`${path} is ${v}, not lossless JSON`);
      else if (v === 0 && 1 / v < 0) problems.push(`${path} is -0, not lossless JSON`);
      continue;
    }
    if (typeof v !== "object" || v === null) {
      if (typeof v !== "string" && typeof v !== "boolean" && v !== null) problems.push(`${path} is a ${typeof v}`);
      continue;
    }
    if (seen.has(v)) continue;
    seen.add(v);
    const proto = Object.getPrototypeOf(v);
    if (proto !== (Array.isArray(v) ? Array.prototype : Object.prototype))
      problems.push(`${path} has an unexpected prototype`);
    if (options.frozen && !Object.isFrozen(v)) problems.push(`${path} is not frozen`);
    for (const key of Reflect.ownKeys(v)) {
      if (typeof key === "symbol") {
        problems.push(`${path} has a symbol key`);
        continue;
      }
      if (Array.isArray(v) && key === "length") continue;
      const d = Object.getOwnPropertyDescriptor(v, key)!;
      if (!("value" in d)) {
        // Reconstructed requests expose `history` / `request` as memoized getters (by design).
        if (!(key === "history" || key === "request")) problems.push(`${path}.${key} is an accessor`);
        stack.push([(v as Record<string, unknown>)[key], `${path}.${key}`]);
        continue;
      }
      stack.push([d.value, `${path}.${key}`]);
    }
  }
  return problems;
}
