// foldRequestHeader / foldHeaderEvent: the header in force after any prefix of a log.
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import {
  canonicalHeader,
  type EpochHeader,
  foldHeaderEvent,
  foldLatestRequestHeader,
  foldRequestHeader,
  HeaderError,
  headerEquals,
} from "../../src/header/index.js";
import { reconstructRequests } from "../../src/reconstruct/index.js";
import type { Session, SessionEvent } from "../../src/session/index.js";
import { baseHeader, sessionWithOpen, text, tool, twoTurnLog } from "../support/builders.js";
import { buildLog, logOpsArb } from "../support/random-log.js";
import { dispatchIndex, headersUsedWhile, isHeaderEvent } from "../reconstruct/support.js";
import { thrown } from "../support/thrown.js";

function snapshot(s: Session, header: EpochHeader, reason: "initial" | "resume" | "fallback" = "initial"): void {
  s.append("request/header", { header: header as never, reason });
}

const headerError = (run: () => unknown): HeaderError => thrown(run, HeaderError);

describe("foldRequestHeader", () => {
  test("an empty log has no header", () => {
    expect(foldRequestHeader([])).toBeUndefined();
  });

  test("a log with turns but no header events has no header", () => {
    const s = sessionWithOpen("turn");
    s.append("user/message", { content: [text("hi")], source: "user" });
    expect(foldRequestHeader(s.events)).toBeUndefined();
  });

  test("a snapshot folds to the canonical form of its header", () => {
    const s = sessionWithOpen("turn");
    snapshot(s, { config: { model: "m" }, system: "", tools: [], messagePrefix: [] });
    const folded = foldRequestHeader(s.events)!;
    expect(folded).toStrictEqual({ config: { model: "m" } });
    expect("messagePrefix" in folded).toBe(false);
  });

  test("a delta applies to the snapshot before it", () => {
    const s = sessionWithOpen("turn");
    snapshot(s, baseHeader());
    s.append("request/header-delta", { tools: { added: [tool("write")], removed: [], changed: [] } } as never);
    expect(foldRequestHeader(s.events)).toStrictEqual(baseHeader({ tools: [tool("read"), tool("write")] }));
  });

  test("a later snapshot replaces the fold whole", () => {
    const s = sessionWithOpen("turn");
    snapshot(s, baseHeader());
    s.append("request/header-delta", { config: { model: "other" } });
    snapshot(s, { config: { model: "m" } }, "resume");
    expect(foldRequestHeader(s.events)).toStrictEqual({ config: { model: "m" } });
  });

  test("a non-header event leaves the fold unchanged (same object)", () => {
    const s = twoTurnLog();
    const h = canonicalHeader(baseHeader());
    for (const e of s.events.filter((e) => !isHeaderEvent(e))) expect(foldHeaderEvent(h, e)).toBe(h);
  });

  test("a delta before any snapshot is corruption: delta-before-snapshot naming the seq", () => {
    const s = sessionWithOpen("turn");
    s.append("user/message", { content: [text("hi")], source: "user" });
    s.append("step/start", { turn: 1, step: 1 });
    s.append("request/header-delta", { config: { model: "m" } });
    const error = headerError(() => foldRequestHeader(s.events));
    expect(error.code).toBe("delta-before-snapshot");
    expect(error.seq).toBe(3);
    expect(error.message).toContain("seq 3");
    expect(foldRequestHeader(s.events.slice(0, 3))).toBeUndefined();
  });

  test("a delta that does not apply is delta-mismatch naming the seq", () => {
    const s = sessionWithOpen("turn");
    snapshot(s, baseHeader());
    s.append("request/header-delta", { tools: { added: [], removed: ["write"], changed: [] } });
    const error = headerError(() => foldRequestHeader(s.events));
    expect(error.code).toBe("delta-mismatch");
    expect(error.seq).toBe(2);
    expect(error.message).toContain("removes unknown tool");
    expect(error.message).toContain("seq 2");
  });

  // Session.append refuses malformed header payloads, so these logs are written by hand, as a
  // damaged stored file would present them.
  test("a malformed snapshot is invalid-header naming the seq", () => {
    const events = [
      { type: "turn/start", seq: 0, time: 0, data: { turn: 1, trigger: "send" } },
      { type: "request/header", seq: 1, time: 0, data: { header: { config: { temperature: 1 } }, reason: "initial" } },
    ] as unknown as SessionEvent[];
    const error = headerError(() => foldRequestHeader(events));
    expect(error.code).toBe("invalid-header");
    expect(error.seq).toBe(1);
    expect(error.message).toContain("header.config.model");
  });

  test("a malformed delta is invalid-delta naming the seq", () => {
    const s = sessionWithOpen("turn");
    snapshot(s, baseHeader());
    const events = [
      ...s.events,
      { type: "request/header-delta", seq: 2, time: 0, data: { system: { keepStart: "1" } } },
    ] as unknown as SessionEvent[];
    const error = headerError(() => foldRequestHeader(events));
    expect(error.code).toBe("invalid-delta");
    expect(error.seq).toBe(2);
  });
});

describe("foldRequestHeader over random logs", () => {
  test("folding from the last snapshot gives the same header as the whole fold, for every prefix", () => {
    fc.assert(
      fc.property(logOpsArb, (ops) => {
        const events = buildLog(ops).events;
        for (let k = 0; k <= events.length; k++) {
          const prefix = events.slice(0, k);
          expect(foldLatestRequestHeader(prefix)).toStrictEqual(foldRequestHeader(prefix));
        }
      }),
      { numRuns: 100 },
    );
  });

  test("folding every prefix never throws and equals the incremental fold", () => {
    fc.assert(
      fc.property(logOpsArb, (ops) => {
        const events = buildLog(ops).events;
        let incremental: EpochHeader | undefined;
        for (let k = 0; k <= events.length; k++) {
          expect(foldRequestHeader(events.slice(0, k))).toStrictEqual(incremental);
          if (k < events.length) incremental = foldHeaderEvent(incremental, events[k]!);
        }
      }),
      { numRuns: 100 },
    );
  });

  test("after each header event the fold equals the header the writer was given", () => {
    fc.assert(
      fc.property(logOpsArb, (ops) => {
        const { result: session, used } = headersUsedWhile(() => buildLog(ops));
        const events = session.events;
        const requests = reconstructRequests(events);
        expect(requests).toHaveLength(used.length);
        requests.forEach((r, i) => {
          const folded = foldRequestHeader(events.slice(0, dispatchIndex(events, r.stepStartSeq)))!;
          expect(headerEquals(folded, used[i]!)).toBe(true);
          expect(folded).toStrictEqual(canonicalHeader(used[i]!));
          expect(r.header).toStrictEqual(folded);
        });
      }),
      { numRuns: 150 },
    );
  });

  test("a single loop instance logs exactly one snapshot with reason initial, first, and no resume", () => {
    fc.assert(
      fc.property(logOpsArb, (ops) => {
        const events = buildLog(ops).events;
        const snapshots = events.filter((e) => e.type === "request/header") as SessionEvent<"request/header">[];
        const headerEvents = events.filter(isHeaderEvent);
        if (headerEvents.length === 0) return;
        expect(headerEvents[0]!.type).toBe("request/header");
        expect(snapshots.map((e) => e.data.reason).filter((r) => r !== "fallback")).toEqual(["initial"]);
      }),
      { numRuns: 150 },
    );
  });
});
