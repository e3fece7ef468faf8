import fc from "fast-check";
import { expect, test } from "vitest";
import { reconstructRequests, verifyLog } from "../../src/reconstruct/index.js";
import { twoTurnLog } from "../support/builders.js";
import { buildLog, logOpsArb } from "../support/random-log.js";

test("smoke: two-turn log verifies and reconstructs", () => {
  const s = twoTurnLog();
  const report = verifyLog(s.events);
  expect(report.issues).toEqual([]);
  expect(reconstructRequests(s.events)).toHaveLength(3);
});

test("smoke: random logs verify", () => {
  fc.assert(
    fc.property(logOpsArb, (ops) => {
      const s = buildLog(ops);
      const report = verifyLog(s.events);
      expect(report.issues).toEqual([]);
    }),
    { numRuns: 200 },
  );
});
