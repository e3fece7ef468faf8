// The hostile-logs suite's generated cases: a valid original log (random operations from
// test/support/random-log.ts, plus a turn with multi-byte text and optionally an open final turn
// left by a "crash") and a corruption spec. A spec is plain numbers interpreted against the
// stored bytes (hostile-logs-corruptions.ts), so one fast-check arbitrary covers every kind and a
// failing trial replays from (seed, group index). Each original takes several corruptions.
import fc from "fast-check";
import type { Session } from "../src/session/index.js";
import { baseHeader, LogDriver, newSession } from "../test/support/builders.js";
import { buildLog, type LogOp, logOpsArb } from "../test/support/random-log.js";

export const CORRUPTION_KINDS = [
  "noop",
  "truncate",
  "flip",
  "bad-utf8",
  "seq-duplicate",
  "seq-missing",
  "seq-reorder",
  "seq-forge",
  "wrong-type",
  "proto-keys",
  "huge-string",
  "deep-nesting",
  "forged-header-event",
  "type-out-of-grammar",
  "forged-session-header",
  "empty",
  "header-only",
  "foreign",
] as const;

export type CorruptionKind = (typeof CORRUPTION_KINDS)[number];

/** What to corrupt: each kind reads the numbers it needs, modulo the sizes it finds. */
export interface CorruptionSpec {
  readonly kind: CorruptionKind;
  /** Picks the kind's variant (e.g. which bad byte sequence, which forged payload). */
  readonly variant: number;
  /** Picks a line (or a second line). */
  readonly line: number;
  readonly line2: number;
  /** Picks a position (a byte, a path, a string), counted from the end when `fromEnd`. */
  readonly at: number;
  readonly fromEnd: boolean;
  /** Picks a size, a mask or a value. */
  readonly n: number;
}

export type OpenTail = "none" | "turn" | "step" | "calls";

export interface OriginalSpec {
  readonly ops: readonly LogOp[];
  /** Text of a turn with multi-byte UTF-8 (so cuts and flips land mid-sequence), or none. */
  readonly unicode: string | undefined;
  /** A final turn left open by a crash, which a writable load must repair. */
  readonly openTail: OpenTail;
  /** How many events go in the atomic first write; the rest are appended and flushed. */
  readonly seedSplit: number;
}

/**
 * Any code point above ASCII, lone surrogates included (JSON.stringify escapes those). Not
 * `unit: "binary"`: its first use builds a reverse map of all 1.1M code points (~2 s).
 */
const wideChar = fc.oneof(
  fc.integer({ min: 0x80, max: 0x10ffff }).map((c) => String.fromCodePoint(c)),
  fc.constantFrom("\ud800", "\udfff", "\u2028", "\u0000", "\ufeff"),
);

const originalArb: fc.Arbitrary<OriginalSpec> = fc.record({
  ops: logOpsArb,
  unicode: fc.option(fc.string({ unit: wideChar, maxLength: 12 }), { nil: undefined }),
  openTail: fc.constantFrom<OpenTail>("none", "none", "none", "turn", "step", "calls"),
  seedSplit: fc.nat(),
});

/** MiB strings cost ~50 times an ordinary case, so they come a third as often as the other kinds. */
const kindArb: fc.Arbitrary<CorruptionKind> = fc.oneof(
  {
    weight: 3 * (CORRUPTION_KINDS.length - 1),
    arbitrary: fc.constantFrom(...CORRUPTION_KINDS.filter((k) => k !== "huge-string")),
  },
  { weight: 1, arbitrary: fc.constant("huge-string" as const) },
);

const corruptionArb: fc.Arbitrary<CorruptionSpec> = fc.record({
  kind: kindArb,
  variant: fc.nat(),
  line: fc.nat(),
  line2: fc.nat(),
  at: fc.nat(),
  fromEnd: fc.boolean(),
  n: fc.nat(),
});

/** One original and the corruptions tried on it (storing an original costs more than a trial). */
export interface HostileGroup {
  readonly original: OriginalSpec;
  readonly corruptions: readonly CorruptionSpec[];
}

export const CORRUPTIONS_PER_ORIGINAL = 8;

export const hostileGroupArb: fc.Arbitrary<HostileGroup> = fc.record({
  original: originalArb,
  corruptions: fc.array(corruptionArb, { minLength: CORRUPTIONS_PER_ORIGINAL, maxLength: CORRUPTIONS_PER_ORIGINAL }),
});

/**
 * The groups of a run: trial i is corruption `i % CORRUPTIONS_PER_ORIGINAL` of the group
 * fast-check draws `i / CORRUPTIONS_PER_ORIGINAL`-th from `seed` (replay one group with
 * `fc.sample(hostileGroupArb, { seed, path: String(group), numRuns: 1 })`).
 */
export function sampleGroups(seed: number, trials: number): HostileGroup[] {
  return fc.sample(hostileGroupArb, { seed, numRuns: Math.ceil(trials / CORRUPTIONS_PER_ORIGINAL) });
}

/** Builds the original session of a group (ids are unique per group so files never collide). */
export function buildOriginal(spec: OriginalSpec, id: string): Session {
  const session = buildLog(spec.ops, newSession(id));
  if (spec.unicode !== undefined) {
    // A second driver is a new loop instance: it logs a `resume` header snapshot.
    new LogDriver(session, baseHeader()).turn({
      prompt: `naïve café ☃ 日本語 🚢 ${spec.unicode}`,
      steps: [{ text: `ü ${spec.unicode}` }],
    });
  }
  const driver = new LogDriver(session, baseHeader());
  switch (spec.openTail) {
    case "none":
      break;
    case "turn":
      driver.openTurn("crashed before the first step");
      break;
    case "step":
      driver.openTurn("crashed after a step", [{ text: "partial ☃" }]);
      break;
    case "calls":
      driver.openTurn(
        "crashed mid tool batch",
        [],
        [
          { name: "read", args: '{"path":"a"}' },
          { name: "read", args: '{"path":"b"}' },
        ],
      );
      break;
  }
  return session;
}
