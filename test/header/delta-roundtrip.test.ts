// The delta codec as a property over random header pairs: diff/apply round-trips wherever the
// codec can express the change, and decideHeaderRecord picks none/delta/fallback accordingly.
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import {
  applyHeaderDelta,
  canonicalHeader,
  decideHeaderRecord,
  diffHeader,
  type EpochHeader,
  HeaderError,
  type HeaderDelta,
  headerEquals,
  validateHeaderDelta,
} from "../../src/header/index.js";
import { headerPairArb, toolOrderExpressible } from "./arbitraries.js";

const RUNS = { numRuns: 500 };

/** True when applying `delta` to the canonical `a` reproduces `b`; a mismatch counts as false. */
function reproduces(a: EpochHeader, delta: HeaderDelta, b: EpochHeader): boolean {
  try {
    return headerEquals(applyHeaderDelta(canonicalHeader(a), delta), b);
  } catch (e) {
    if (e instanceof HeaderError && e.code === "delta-mismatch") return false;
    throw e;
  }
}

describe("diffHeader / applyHeaderDelta round trip", () => {
  test("the delta is undefined exactly when the headers are equal", () => {
    fc.assert(
      fc.property(headerPairArb, ([a, b]) => {
        expect(diffHeader(a, b) === undefined).toBe(headerEquals(a, b));
      }),
      RUNS,
    );
  });

  test("for unequal headers, apply(diff) reproduces the target or the writer falls back to a snapshot", () => {
    fc.assert(
      fc.property(headerPairArb, ([a, b]) => {
        fc.pre(!headerEquals(a, b));
        const delta = diffHeader(a, b)!;
        const decision = decideHeaderRecord({ folded: a, next: b, firstOfInstance: false });
        if (reproduces(a, delta, b)) {
          expect(decision).toStrictEqual({ kind: "delta", delta });
        } else {
          expect(decision).toStrictEqual({ kind: "snapshot", reason: "fallback", header: canonicalHeader(b) });
        }
      }),
      RUNS,
    );
  });

  test("decideHeaderRecord says none for equal headers, delta iff apply reproduces, else fallback", () => {
    fc.assert(
      fc.property(headerPairArb, ([a, b]) => {
        const decision = decideHeaderRecord({ folded: a, next: b, firstOfInstance: false });
        const delta = diffHeader(a, b);
        const expected = headerEquals(a, b) ? "none" : reproduces(a, delta!, b) ? "delta" : "snapshot";
        expect(decision.kind).toBe(expected);
      }),
      RUNS,
    );
  });

  test("the codec is lossless except for tool order: every change with expressible tool order round-trips", () => {
    fc.assert(
      fc.property(headerPairArb, ([a, b]) => {
        fc.pre(!headerEquals(a, b));
        const delta = diffHeader(a, b)!;
        expect(reproduces(a, delta, b)).toBe(toolOrderExpressible(a, b));
      }),
      RUNS,
    );
  });

  test("a reproducing delta applies to the fold exactly, including canonical absence", () => {
    fc.assert(
      fc.property(headerPairArb, ([a, b]) => {
        const delta = diffHeader(a, b);
        fc.pre(delta !== undefined && reproduces(a, delta, b));
        expect(applyHeaderDelta(canonicalHeader(a), delta!)).toStrictEqual(canonicalHeader(b));
      }),
      RUNS,
    );
  });

  test("every delta diffHeader produces is a valid delta and survives a JSON round trip", () => {
    fc.assert(
      fc.property(headerPairArb, ([a, b]) => {
        const delta = diffHeader(a, b);
        fc.pre(delta !== undefined);
        expect(() => validateHeaderDelta(delta)).not.toThrow();
        const stored = JSON.parse(JSON.stringify(delta)) as HeaderDelta;
        expect(reproduces(a, stored, b)).toBe(reproduces(a, delta!, b));
      }),
      RUNS,
    );
  });

  test("a delta carries exactly the arms that differ", () => {
    const only = (h: EpochHeader, key: "system" | "tools" | "messagePrefix"): EpochHeader => ({
      config: { model: "-" },
      ...(h[key] === undefined ? {} : { [key]: h[key] }),
    });
    fc.assert(
      fc.property(headerPairArb, ([a, b]) => {
        const delta = diffHeader(a, b) ?? {};
        expect("config" in delta).toBe(!headerEquals({ config: a.config }, { config: b.config }));
        for (const key of ["system", "tools", "messagePrefix"] as const) {
          expect(key in delta).toBe(!headerEquals(only(a, key), only(b, key)));
        }
      }),
      RUNS,
    );
  });
});
