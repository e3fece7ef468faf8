// The delta codec's arms, one behaviour per test (ARCHITECTURE.md §3): system as a line trim,
// tools keyed by name, config whole, messagePrefix whole with [] meaning absence.
import { describe, expect, test } from "vitest";
import {
  applyHeaderDelta,
  decideHeaderRecord,
  diffHeader,
  diffSystem,
  type EpochHeader,
  HeaderError,
  type HeaderDelta,
  headerEquals,
} from "../../src/header/index.js";
import { deepFreeze } from "../../src/json/index.js";
import { text, tool } from "../support/builders.js";
import type { ToolSchema } from "../../src/llm/core.js";

const config = { model: "emulator:a" };
const withSystem = (system: string): EpochHeader => ({ config, system });
const withTools = (...tools: ToolSchema[]): EpochHeader => ({ config, tools });
const changedRead: ToolSchema = { ...tool("read"), description: "reads a file, now with line numbers" };
const catalog = [{ role: "user" as const, content: [text("<skills>a, b</skills>")] }];

/** Applies `diffHeader(a, b)` to `a` and returns the result (the delta must exist). */
function roundTrip(a: EpochHeader, b: EpochHeader): EpochHeader {
  const delta = diffHeader(a, b);
  expect(delta).toBeDefined();
  return applyHeaderDelta(a, delta!);
}

function expectMismatch(run: () => unknown, fragment: string): void {
  try {
    run();
  } catch (e) {
    expect(e).toBeInstanceOf(HeaderError);
    expect((e as HeaderError).code).toBe("delta-mismatch");
    expect((e as HeaderError).message).toContain(fragment);
    return;
  }
  expect.unreachable("expected a delta-mismatch HeaderError");
}

describe("system arm: line trim", () => {
  test("keeps the common first and last lines and inserts the middle", () => {
    const a = withSystem("You are Keelson.\nRule A.\nRule B.\nBe brief.");
    const b = withSystem("You are Keelson.\nRule X.\nRule Y.\nRule Z.\nBe brief.");
    expect(diffHeader(a, b)).toStrictEqual({
      system: { keepStart: 1, keepEnd: 1, insert: ["Rule X.", "Rule Y.", "Rule Z."] },
    });
    expect(roundTrip(a, b)).toStrictEqual(b);
  });

  test("appending a line keeps every old line and inserts only the new one", () => {
    expect(diffSystem("A\nB", "A\nB\nC")).toStrictEqual({ keepStart: 2, keepEnd: 0, insert: ["C"] });
  });

  test("removing a middle line inserts nothing", () => {
    expect(diffSystem("A\nB\nC", "A\nC")).toStrictEqual({ keepStart: 1, keepEnd: 1, insert: [] });
  });

  test("kept leading and trailing lines never overlap on repeated lines", () => {
    expect(diffSystem("A\nA", "A\nA\nA")).toStrictEqual({ keepStart: 2, keepEnd: 0, insert: ["A"] });
    expect(diffSystem("A\nA\nA", "A\nA")).toStrictEqual({ keepStart: 2, keepEnd: 0, insert: [] });
    expect(roundTrip(withSystem("A\nA\nA"), withSystem("A\nA"))).toStrictEqual(withSystem("A\nA"));
  });

  test("empty lines are lines: a blank line added between paragraphs round-trips", () => {
    const a = withSystem("Intro.\n\nRules.");
    const b = withSystem("Intro.\n\n\nRules.");
    expect(diffHeader(a, b)).toStrictEqual({ system: { keepStart: 2, keepEnd: 1, insert: [""] } });
    expect(roundTrip(a, b)).toStrictEqual(b);
  });

  test("a trailing newline is a change that round-trips", () => {
    const a = withSystem("A\nB");
    const b = withSystem("A\nB\n");
    expect(diffHeader(a, b)).toStrictEqual({ system: { keepStart: 2, keepEnd: 0, insert: [""] } });
    expect(roundTrip(a, b)).toStrictEqual(b);
  });

  test("system to absent is a trim that keeps nothing; the result has no system key", () => {
    const a = withSystem("A\nB");
    expect(diffHeader(a, { config })).toStrictEqual({ system: { keepStart: 0, keepEnd: 0, insert: [] } });
    const out = roundTrip(a, { config });
    expect("system" in out).toBe(false);
  });

  test("absent to system inserts every line", () => {
    const b = withSystem("A\n\nB");
    expect(diffHeader({ config }, b)).toStrictEqual({ system: { keepStart: 0, keepEnd: 0, insert: ["A", "", "B"] } });
    expect(roundTrip({ config }, b)).toStrictEqual(b);
  });

  test("an empty system and an absent one need no delta", () => {
    expect(diffHeader(withSystem(""), { config })).toBeUndefined();
    expect(diffHeader({ config }, withSystem(""))).toBeUndefined();
  });
});

describe("tools arm: keyed by name", () => {
  test("an added tool is listed under added and appended", () => {
    const b = withTools(tool("read"), tool("write"));
    expect(diffHeader(withTools(tool("read")), b)).toStrictEqual({
      tools: { added: [tool("write")], removed: [], changed: [] },
    });
    expect(roundTrip(withTools(tool("read")), b)).toStrictEqual(b);
  });

  test("a removed tool is listed by name", () => {
    const b = withTools(tool("write"));
    expect(diffHeader(withTools(tool("read"), tool("write")), b)).toStrictEqual({
      tools: { added: [], removed: ["read"], changed: [] },
    });
    expect(roundTrip(withTools(tool("read"), tool("write")), b)).toStrictEqual(b);
  });

  test("a changed tool is listed whole and replaced in place", () => {
    const a = withTools(tool("read"), tool("write"));
    const b = withTools(changedRead, tool("write"));
    expect(diffHeader(a, b)).toStrictEqual({ tools: { added: [], removed: [], changed: [changedRead] } });
    expect(roundTrip(a, b)).toStrictEqual(b);
  });

  test("removed, changed and added together keep survivors in order and append new tools", () => {
    const a = withTools(tool("read"), tool("write"), tool("grep"));
    const b = withTools(changedRead, tool("grep"), tool("ls"));
    expect(diffHeader(a, b)).toStrictEqual({
      tools: { added: [tool("ls")], removed: ["write"], changed: [changedRead] },
    });
    expect(roundTrip(a, b)).toStrictEqual(b);
  });

  test("removing every tool leaves no tools key", () => {
    const out = roundTrip(withTools(tool("read")), { config });
    expect("tools" in out).toBe(false);
  });

  test("a tool whose schema keys are merely reordered is unchanged", () => {
    const reordered: ToolSchema = { inputSchema: tool("read").inputSchema, description: "the read tool", name: "read" };
    expect(diffHeader(withTools(tool("read")), withTools(reordered))).toBeUndefined();
  });

  test("a reorder alone is not expressible: the delta does not reproduce it and the writer falls back", () => {
    const a = withTools(tool("read"), tool("write"));
    const b = withTools(tool("write"), tool("read"));
    const delta = diffHeader(a, b);
    expect(delta).toStrictEqual({ tools: { added: [], removed: [], changed: [] } });
    expect(headerEquals(applyHeaderDelta(a, delta!), b)).toBe(false);
    expect(decideHeaderRecord({ folded: a, next: b, firstOfInstance: false })).toStrictEqual({
      kind: "snapshot",
      reason: "fallback",
      header: b,
    });
  });
});

describe("config arm: replaced whole", () => {
  test("a changed config is carried whole, so dropped fields stay dropped", () => {
    const a: EpochHeader = { config: { model: "m", temperature: 0.2, maxTokens: 10 } };
    const b: EpochHeader = { config: { model: "m", temperature: 0.3 } };
    expect(diffHeader(a, b)).toStrictEqual({ config: { model: "m", temperature: 0.3 } });
    const out = roundTrip(a, b);
    expect(out).toStrictEqual(b);
    expect("maxTokens" in out.config).toBe(false);
  });

  test("a config that differs only in key order needs no delta", () => {
    expect(
      diffHeader({ config: { model: "m", maxTokens: 1 } }, { config: { maxTokens: 1, model: "m" } }),
    ).toBeUndefined();
  });

  test("only the arms that changed appear in the delta", () => {
    const a: EpochHeader = { config, system: "S", tools: [tool("read")], messagePrefix: catalog };
    expect(Object.keys(diffHeader(a, { ...a, config: { model: "n" } })!)).toEqual(["config"]);
    expect(Object.keys(diffHeader(a, { ...a, system: "T" })!)).toEqual(["system"]);
    expect(Object.keys(diffHeader(a, { ...a, tools: [] })!)).toEqual(["tools"]);
    expect(Object.keys(diffHeader(a, { ...a, messagePrefix: [] })!)).toEqual(["messagePrefix"]);
  });
});

describe("messagePrefix arm: replaced whole", () => {
  test("absent to a prefix carries the whole prefix", () => {
    const b: EpochHeader = { config, messagePrefix: catalog };
    expect(diffHeader({ config }, b)).toStrictEqual({ messagePrefix: catalog });
    expect(roundTrip({ config }, b)).toStrictEqual(b);
  });

  test("a prefix to absence is encoded as [] and applies to no messagePrefix key", () => {
    const delta = diffHeader({ config, messagePrefix: catalog }, { config });
    expect(delta).toStrictEqual({ messagePrefix: [] });
    const out = applyHeaderDelta({ config, messagePrefix: catalog }, delta!);
    expect("messagePrefix" in out).toBe(false);
    expect(out).toStrictEqual({ config });
  });

  test("a changed prefix is carried whole", () => {
    const next = [...catalog, { role: "assistant" as const, content: [text("Noted.")] }];
    expect(diffHeader({ config, messagePrefix: catalog }, { config, messagePrefix: next })).toStrictEqual({
      messagePrefix: next,
    });
  });
});

describe("applyHeaderDelta", () => {
  test("returns the canonical form: empty parts of the input come out absent", () => {
    const out = applyHeaderDelta({ config, system: "", tools: [], messagePrefix: [] }, {});
    expect(out).toStrictEqual({ config });
  });

  test("does not mutate its (deep-frozen) input", () => {
    const a = deepFreeze<EpochHeader>({ config, system: "A\nB", tools: [tool("read")] });
    const before = structuredClone(a);
    applyHeaderDelta(a, {
      system: { keepStart: 1, keepEnd: 0, insert: ["C"] },
      tools: { added: [tool("ls")], removed: ["read"], changed: [] },
    });
    expect(a).toStrictEqual(before);
  });
});

describe("applyHeaderDelta rejects deltas that do not fit (delta-mismatch)", () => {
  const sys = (keepStart: number, keepEnd: number): HeaderDelta => ({ system: { keepStart, keepEnd, insert: [] } });
  const tools = (d: Partial<{ added: ToolSchema[]; removed: string[]; changed: ToolSchema[] }>): HeaderDelta => ({
    tools: { added: [], removed: [], changed: [], ...d },
  });

  test("system keep counts larger than the prompt", () => {
    expectMismatch(() => applyHeaderDelta(withSystem("A\nB"), sys(2, 1)), "2+1 lines of a 2-line");
    expectMismatch(() => applyHeaderDelta(withSystem("A\nB"), sys(3, 0)), "3+0");
  });

  test("system keep counts on an absent prompt", () => {
    expectMismatch(() => applyHeaderDelta({ config }, sys(1, 0)), "0-line");
  });

  test("keep counts that exactly cover the prompt are accepted", () => {
    expect(applyHeaderDelta(withSystem("A\nB"), sys(1, 1))).toStrictEqual(withSystem("A\nB"));
  });

  test("removing an unknown tool", () => {
    expectMismatch(
      () => applyHeaderDelta(withTools(tool("read")), tools({ removed: ["write"] })),
      'removes unknown tool "write"',
    );
  });

  test("changing an unknown tool", () => {
    expectMismatch(
      () => applyHeaderDelta(withTools(tool("read")), tools({ changed: [tool("write")] })),
      'changes unknown tool "write"',
    );
  });

  test("changing a tool the same delta removes", () => {
    expectMismatch(
      () => applyHeaderDelta(withTools(tool("read")), tools({ removed: ["read"], changed: [changedRead] })),
      'changes unknown tool "read"',
    );
  });

  test("adding an existing tool", () => {
    expectMismatch(
      () => applyHeaderDelta(withTools(tool("read")), tools({ added: [tool("read")] })),
      'adds existing tool "read"',
    );
  });

  test("any tool change against an absent tool list", () => {
    expectMismatch(() => applyHeaderDelta({ config }, tools({ removed: ["read"] })), "unknown tool");
  });
});
