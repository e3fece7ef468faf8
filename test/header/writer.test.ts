// The header writer (P15, P16): decideHeaderRecord as a pure decision, and HeaderWriter
// appending it to a session, one writer per loop instance.
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import {
  HeaderError,
  canonicalHeader,
  decideHeaderRecord,
  type EpochHeader,
  foldRequestHeader,
  HeaderWriter,
  headerEquals,
} from "../../src/header/index.js";
import { deepFreeze } from "../../src/json/index.js";
import type { Session, SessionEvent } from "../../src/session/index.js";
import { baseHeader, sessionWithOpen, text, tool } from "../support/builders.js";
import { epochHeaderArb, mutatedHeaderArb, reverseKeys } from "./arbitraries.js";
import type { ToolSchema } from "../../src/llm/core.js";

const reordered = baseHeader({ tools: [tool("write"), tool("read")] });
const twoTools = baseHeader({ tools: [tool("read"), tool("write")] });

/** Records `header` and returns the events that record appended. */
function recordAndCollect(writer: HeaderWriter, session: Session, header: EpochHeader): SessionEvent[] {
  const before = session.length;
  writer.record(header);
  return session.events.slice(before);
}

describe("decideHeaderRecord", () => {
  test("with no header in the log, the decision is an initial snapshot of the canonical header", () => {
    const next: EpochHeader = { config: { model: "m" }, system: "", tools: [] };
    for (const firstOfInstance of [true, false]) {
      expect(decideHeaderRecord({ folded: undefined, next, firstOfInstance })).toStrictEqual({
        kind: "snapshot",
        reason: "initial",
        header: { config: { model: "m" } },
      });
    }
  });

  test("the first request of an instance is a resume snapshot even when identical to the fold", () => {
    expect(decideHeaderRecord({ folded: baseHeader(), next: baseHeader(), firstOfInstance: true })).toStrictEqual({
      kind: "snapshot",
      reason: "resume",
      header: baseHeader(),
    });
  });

  test("within an instance, a header equal to the fold (in any representation) records nothing", () => {
    expect(
      decideHeaderRecord({ folded: baseHeader(), next: reverseKeys(baseHeader()), firstOfInstance: false }),
    ).toStrictEqual({ kind: "none" });
    expect(
      decideHeaderRecord({
        folded: baseHeader({ tools: [] }),
        next: baseHeader({ tools: undefined as never }),
        firstOfInstance: false,
      }),
    ).toStrictEqual({
      kind: "none",
    });
  });

  test("within an instance, an expressible change records a delta", () => {
    expect(decideHeaderRecord({ folded: baseHeader(), next: twoTools, firstOfInstance: false })).toStrictEqual({
      kind: "delta",
      delta: { tools: { added: [tool("write")], removed: [], changed: [] } },
    });
  });

  test("within an instance, a change the codec cannot reproduce records a fallback snapshot", () => {
    expect(decideHeaderRecord({ folded: twoTools, next: reordered, firstOfInstance: false })).toStrictEqual({
      kind: "snapshot",
      reason: "fallback",
      header: reordered,
    });
  });
});

describe("HeaderWriter", () => {
  test("the first request on a log with no header appends exactly one initial snapshot", () => {
    const s = sessionWithOpen("turn");
    const appended = recordAndCollect(new HeaderWriter(s), s, baseHeader());
    expect(appended.map((e) => [e.type, e.data])).toStrictEqual([
      ["request/header", { header: baseHeader(), reason: "initial" }],
    ]);
  });

  test("the snapshot stores the canonical header: no empty system, tools or prefix", () => {
    const s = sessionWithOpen("turn");
    const [event] = recordAndCollect(new HeaderWriter(s), s, {
      config: { model: "m" },
      system: "",
      tools: [],
      messagePrefix: [],
    });
    expect((event as SessionEvent<"request/header">).data.header).toStrictEqual({ config: { model: "m" } });
  });

  test("an unchanged header appends nothing", () => {
    const s = sessionWithOpen("turn");
    const w = new HeaderWriter(s);
    w.record(baseHeader());
    expect(recordAndCollect(w, s, baseHeader())).toEqual([]);
    expect(recordAndCollect(w, s, reverseKeys(baseHeader()))).toEqual([]);
    expect(w.record(baseHeader())).toStrictEqual({ kind: "none" });
  });

  test("a changed header appends exactly one delta, and the fold afterwards is the header used", () => {
    const s = sessionWithOpen("turn");
    const w = new HeaderWriter(s);
    w.record(baseHeader());
    const next = baseHeader({
      system: "You are a careful assistant.\nAnswer briefly.\nCite files.",
      config: { model: "emulator:rule-based", maxTokens: 2048 },
    });
    const appended = recordAndCollect(w, s, next);
    expect(appended.map((e) => e.type)).toEqual(["request/header-delta"]);
    expect(appended[0]!.data).toStrictEqual({
      system: { keepStart: 2, keepEnd: 0, insert: ["Cite files."] },
      config: next.config,
    });
    expect(foldRequestHeader(s.events)).toStrictEqual(next);
  });

  test("a change the codec cannot reproduce appends exactly one fallback snapshot", () => {
    const s = sessionWithOpen("turn");
    const w = new HeaderWriter(s);
    w.record(twoTools);
    const appended = recordAndCollect(w, s, reordered);
    expect(appended.map((e) => [e.type, e.data])).toStrictEqual([
      ["request/header", { header: reordered, reason: "fallback" }],
    ]);
    expect(foldRequestHeader(s.events)).toStrictEqual(reordered);
  });

  test("a second instance's first request appends a resume snapshot even when identical to the fold", () => {
    const s = sessionWithOpen("turn");
    new HeaderWriter(s).record(baseHeader());
    const second = new HeaderWriter(s);
    expect(second.current).toStrictEqual(baseHeader());
    const appended = recordAndCollect(second, s, baseHeader());
    expect(appended.map((e) => [e.type, e.data])).toStrictEqual([
      ["request/header", { header: baseHeader(), reason: "resume" }],
    ]);
    expect(recordAndCollect(second, s, baseHeader())).toEqual([]);
  });

  test("a second instance over a log with turns but no header appends an initial snapshot", () => {
    const s = sessionWithOpen("turn");
    s.append("context/message", { content: [text("injected")], source: "inject" });
    const appended = recordAndCollect(new HeaderWriter(s), s, baseHeader());
    expect((appended[0] as SessionEvent<"request/header">).data.reason).toBe("initial");
  });

  test("current is the fold of the log after every record", () => {
    const s = sessionWithOpen("turn");
    const w = new HeaderWriter(s);
    expect(w.current).toBeUndefined();
    for (const h of [
      baseHeader(),
      twoTools,
      reordered,
      baseHeader({ messagePrefix: [{ role: "user", content: [text("p")] }] }),
      { config: { model: "m" } },
    ]) {
      w.record(h);
      expect(w.current).toStrictEqual(foldRequestHeader(s.events));
    }
  });

  test("a header the log rejects leaves the writer's state untouched", () => {
    const s = sessionWithOpen("turn");
    const w = new HeaderWriter(s);
    expect(() => w.record({ config: { model: "m", temperature: Number.NaN } })).toThrow(HeaderError);
    expect(w.current).toBeUndefined();
    expect(s.length).toBe(1);
    expect(w.record(baseHeader())).toMatchObject({ kind: "snapshot", reason: "initial" });
  });

  test.each<[string, EpochHeader]>([
    ["duplicate tool names", baseHeader({ tools: [tool("read"), tool("read")] })],
    ["a config without model", { config: {} as never }],
    [
      "a prefix message with an unknown role",
      baseHeader({ messagePrefix: [{ role: "system", content: [text("x")] }] as never }),
    ],
  ])("a malformed header (%s) is refused before anything is logged, so the log still folds", (_what, bad) => {
    const s = sessionWithOpen("turn");
    const w = new HeaderWriter(s);
    expect(() => w.record(bad)).toThrow(expect.objectContaining({ name: "HeaderError", code: "invalid-header" }));
    expect(s.length).toBe(1);
    expect(() => foldRequestHeader(s.events)).not.toThrow();
  });

  test("the fold yields the header used even when the caller mutates its header object afterwards", () => {
    const s = sessionWithOpen("turn");
    const w = new HeaderWriter(s);
    const header: { config: { model: string }; tools: ToolSchema[] } = {
      config: { model: "emulator:a" },
      tools: [tool("read")],
    };
    w.record(header);
    header.config.model = "emulator:b"; // e.g. an agent/request listener editing the config in place
    header.tools.push(tool("write"));
    w.record(header);
    expect(foldRequestHeader(s.events)).toStrictEqual(canonicalHeader(header));
  });
});

/** A walk of headers, each equal to or an edit of the previous one. */
function walkArb(from: EpochHeader, length: number): fc.Arbitrary<EpochHeader[]> {
  if (length === 0) return fc.constant([]);
  return fc
    .oneof(fc.constant(from), mutatedHeaderArb(from))
    .chain((next) => walkArb(next, length - 1).map((rest) => [next, ...rest]));
}

const recordingsArb = fc
  .tuple(epochHeaderArb, fc.integer({ min: 0, max: 7 }))
  .chain(([h, n]) => walkArb(h, n).map((rest) => [h, ...rest]))
  .chain((headers) =>
    fc
      .array(fc.boolean(), { minLength: headers.length, maxLength: headers.length })
      .map((newInstance) => headers.map((h, i) => ({ header: h, newInstance: newInstance[i]! }))),
  );

describe("HeaderWriter over random header sequences and instances (P15, P16)", () => {
  test("each record appends what the rules say, and the fold afterwards is exactly the header used", () => {
    fc.assert(
      fc.property(recordingsArb, (recordings) => {
        const s = sessionWithOpen("turn");
        let writer = new HeaderWriter(s);
        let first = true;
        let previous: EpochHeader | undefined;
        for (const { header, newInstance } of recordings) {
          if (newInstance) {
            writer = new HeaderWriter(s);
            first = true;
          }
          const appended = recordAndCollect(writer, s, header);
          expect(foldRequestHeader(s.events)).toStrictEqual(canonicalHeader(header));
          if (first) {
            expect(appended.map((e) => [e.type, (e as SessionEvent<"request/header">).data.reason])).toEqual([
              ["request/header", previous === undefined ? "initial" : "resume"],
            ]);
          } else if (headerEquals(previous!, header)) {
            expect(appended).toEqual([]);
          } else {
            expect(appended).toHaveLength(1);
            const [event] = appended as [SessionEvent];
            if (event.type === "request/header")
              expect((event as SessionEvent<"request/header">).data.reason).toBe("fallback");
            else expect(event.type).toBe("request/header-delta");
          }
          first = false;
          previous = header;
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe("HeaderWriter's identity fast path", () => {
  test("the same deep-frozen system, tools and prefix and the config in force log nothing; a new frozen tools array is compared by content", () => {
    const session = sessionWithOpen("step");
    const writer = new HeaderWriter(session);
    const tools = deepFreeze([tool("read"), tool("write")]);
    const prefix = deepFreeze([{ role: "user" as const, content: [text("opener")] }]);
    writer.record({ config: { model: "m" }, system: "s", tools, messagePrefix: prefix });
    const config = writer.current!.config;
    expect(recordAndCollect(writer, session, { config, system: "s", tools, messagePrefix: prefix })).toEqual([]);
    // A different (frozen) array with different content: not skipped, a delta is logged.
    const more = deepFreeze([tool("read"), tool("write"), tool("ls")]);
    expect(
      recordAndCollect(writer, session, { config, system: "s", tools: more, messagePrefix: prefix }).map((e) => e.type),
    ).toEqual(["request/header-delta"]);
    expect(writer.current!.tools!.map((t) => t.name)).toEqual(["read", "write", "ls"]);
  });

  test("mutable inputs are never trusted by identity: mutating the same array between records is logged", () => {
    const session = sessionWithOpen("step");
    const writer = new HeaderWriter(session);
    const tools: ToolSchema[] = [tool("read")];
    writer.record({ config: { model: "m" }, system: "s", tools });
    tools.push(tool("write"));
    const events = recordAndCollect(writer, session, { config: writer.current!.config, system: "s", tools });
    expect(events.map((e) => e.type)).toEqual(["request/header-delta"]);
    expect(foldRequestHeader(session.events)!.tools!.map((t) => t.name)).toEqual(["read", "write"]);
  });

  test("a config object that is not the one in force is compared by content", () => {
    const session = sessionWithOpen("step");
    const writer = new HeaderWriter(session);
    const tools = deepFreeze([tool("read")]);
    writer.record({ config: { model: "m" }, system: "s", tools });
    expect(recordAndCollect(writer, session, { config: { model: "m" }, system: "s", tools })).toEqual([]);
    expect(
      recordAndCollect(writer, session, { config: { model: "m2" }, system: "s", tools }).map((e) => e.type),
    ).toEqual(["request/header-delta"]);
  });
});
