// reconstructRequests over random valid logs (P13, P14, and P18 in its header-only form).
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { type EpochHeader, foldRequestHeader, headerEquals } from "../../src/header/index.js";
import type { Message } from "../../src/messages/index.js";
import { type ReconstructedRequest, reconstructRequests } from "../../src/reconstruct/index.js";
import { Session, type SessionEvent } from "../../src/session/index.js";
import { baseHeader, LogDriver, newSession, text } from "../support/builders.js";
import { buildLog, type LogOp, logOpArb, logOpsArb } from "../support/random-log.js";
import { dispatchIndex, headersUsedWhile, isHeaderEvent, naiveHistory, undefinedPaths } from "./support.js";

const RUNS = { numRuns: 150 };

/** Random logs paired with their reconstruction. */
const reconstructedArb = logOpsArb.map((ops) => {
  const events = buildLog(ops).events;
  return { events, requests: reconstructRequests(events) };
});

/** What the spec says a request is: the config's fields, system and tools if present, prefix ++ history. */
function specRequest(h: EpochHeader, history: readonly Message[]): Record<string, unknown> {
  return {
    ...h.config,
    ...(h.system ? { system: h.system } : {}),
    ...(h.tools?.length ? { tools: h.tools } : {}),
    messages: [...(h.messagePrefix ?? []), ...history],
  };
}

const isPrefixOf = (a: readonly Message[], b: readonly Message[]): boolean =>
  a.length <= b.length && JSON.stringify(b.slice(0, a.length)) === JSON.stringify(a);

describe("reconstructRequests over random logs", () => {
  test("there is one request per step/start, in log order, naming its turn and step", () => {
    fc.assert(
      fc.property(reconstructedArb, ({ events, requests }) => {
        const starts = events.filter((e) => e.type === "step/start") as SessionEvent<"step/start">[];
        expect(requests.map((r) => [r.stepStartSeq, r.turn, r.step])).toEqual(
          starts.map((e) => [e.seq, e.data.turn, e.data.step]),
        );
      }),
      RUNS,
    );
  });

  test("each history equals a naive fold of the events before its step/start (P13)", () => {
    fc.assert(
      fc.property(reconstructedArb, ({ events, requests }) => {
        for (const r of requests) expect(r.history).toStrictEqual(naiveHistory(events.slice(0, r.stepStartSeq)));
      }),
      RUNS,
    );
  });

  test("each history equals a fresh Session's derived messages over the events before its step/start", () => {
    fc.assert(
      fc.property(reconstructedArb, ({ events, requests }) => {
        for (const r of requests) {
          const replayed = Session.fromLog({ version: 1, id: "replay", createdAt: 0 }, events.slice(0, r.stepStartSeq));
          expect(r.history).toStrictEqual(replayed.deriveMessages());
        }
      }),
      RUNS,
    );
  });

  test("each header is the fold of the events logged before dispatch (P14)", () => {
    fc.assert(
      fc.property(reconstructedArb, ({ events, requests }) => {
        for (const r of requests)
          expect(r.header).toStrictEqual(foldRequestHeader(events.slice(0, dispatchIndex(events, r.stepStartSeq))));
      }),
      RUNS,
    );
  });

  test("each header equals the header the writer was given for that step", () => {
    fc.assert(
      fc.property(logOpsArb, (ops) => {
        const { result: session, used } = headersUsedWhile(() => buildLog(ops));
        const requests = reconstructRequests(session.events);
        expect(requests.length).toBe(used.length);
        requests.forEach((r, i) => {
          expect(headerEquals(r.header, used[i]!)).toBe(true);
        });
      }),
      RUNS,
    );
  });

  test("each request is the header's config, system and tools with messages = prefix ++ history", () => {
    fc.assert(
      fc.property(reconstructedArb, ({ requests }) => {
        for (const r of requests) expect(r.request).toStrictEqual(specRequest(r.header, r.history));
      }),
      RUNS,
    );
  });

  test("no key anywhere in a request or header has the value undefined", () => {
    fc.assert(
      fc.property(reconstructedArb, ({ requests }) => {
        for (const r of requests) {
          expect(undefinedPaths(r.request)).toEqual([]);
          expect(undefinedPaths(r.header)).toEqual([]);
        }
      }),
      RUNS,
    );
  });

  test("reconstruction is prefix-stable: cutting the log outside a dispatch keeps the earlier requests", () => {
    fc.assert(
      fc.property(reconstructedArb, fc.nat(), ({ events, requests }, at) => {
        const cut = events.length === 0 ? 0 : at % (events.length + 1);
        fc.pre(cut === events.length || !isHeaderEvent(events[cut]!));
        const early = reconstructRequests(events.slice(0, cut));
        const expected = requests.filter((r) => r.stepStartSeq < cut);
        expect(early.map((r) => r.request)).toStrictEqual(expected.map((r) => r.request));
      }),
      RUNS,
    );
  });

  test("a stored (JSON round-tripped) log reconstructs to the same requests", () => {
    fc.assert(
      fc.property(reconstructedArb, ({ events, requests }) => {
        const stored = reconstructRequests(JSON.parse(JSON.stringify(events)) as SessionEvent[]);
        expect(stored.map((r) => r.request)).toStrictEqual(requests.map((r) => r.request));
      }),
      RUNS,
    );
  });
});

/** Consecutive requests: each one's messages extend the previous one's, and system and tools are equal. */
function expectAppendExtension(requests: readonly ReconstructedRequest[]): void {
  for (let i = 1; i < requests.length; i++) {
    const [prev, next] = [requests[i - 1]!.request, requests[i]!.request];
    expect(isPrefixOf(prev.messages, next.messages)).toBe(true);
    expect(next.messages.length).toBeGreaterThan(prev.messages.length);
    expect(next.system).toStrictEqual(prev.system);
    expect(next.tools).toStrictEqual(prev.tools);
  }
}

describe("append-extension with an unchanged header (P18, header-only form)", () => {
  const unchangedOpsArb = fc.array(
    logOpArb
      .filter((op) => op.kind === "turn" || op.kind === "inject")
      .map(
        (op): LogOp =>
          op.kind === "turn" ? { kind: "turn", steps: op.steps.map((s) => ({ ...s, change: "none" as const })) } : op,
      ),
    { maxLength: 10 },
  );

  test("each request's messages are a prefix of the next request's, within and across turns", () => {
    fc.assert(
      fc.property(unchangedOpsArb, (ops) => {
        const events = buildLog(ops).events;
        expect(events.filter(isHeaderEvent).length).toBeLessThanOrEqual(1);
        expectAppendExtension(reconstructRequests(events));
      }),
      RUNS,
    );
  });

  test("the same holds with a message prefix in the header", () => {
    const prefix: Message[] = [{ role: "user", content: [text("<skills>read</skills>")] }];
    const turnsArb = fc.array(fc.array(fc.nat(3), { minLength: 1, maxLength: 3 }), { maxLength: 6 });
    fc.assert(
      fc.property(turnsArb, (turns) => {
        const driver = new LogDriver(newSession(), baseHeader({ messagePrefix: prefix }));
        turns.forEach((steps, t) => {
          driver.turn({
            prompt: `prompt ${t}`,
            steps: steps.map((calls, i) => ({
              text: `answer ${t}.${i}`,
              toolCalls: Array.from({ length: calls }, (_, k) => ({ name: "read", args: `{"path":"f${k}"}` })),
            })),
          });
        });
        const requests = reconstructRequests(driver.session.events);
        for (const r of requests) expect(r.request.messages.slice(0, 1)).toStrictEqual(prefix);
        expectAppendExtension(requests);
      }),
      RUNS,
    );
  });
});
