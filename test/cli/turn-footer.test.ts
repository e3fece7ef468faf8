// The per-turn footer: tallyTurn folds one turn's usage, steps and end reason out of a real
// session log (other turns ignored), cacheHitShare, and formatFooter's exact line.
import { describe, expect, test } from "vitest";
import { cacheHitShare, describeReason, formatFooter, tallyTurn } from "../../src/cli/turn-footer.js";
import type { Usage } from "../../src/messages/index.js";
import type { Session, TurnEndReason } from "../../src/session/index.js";
import { LogDriver, newSession, text } from "../support/builders.js";

const ZERO: Usage = { inputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 0 };

/** Appends one step whose assistant message carries `usage` (or none). */
function step(driver: LogDriver, turn: number, n: number, usage: Usage | undefined): void {
  const s = driver.session;
  s.append("step/start", { turn, step: n });
  s.append("assistant/message", {
    turn,
    step: n,
    content: [text(`answer ${turn}.${n}`)],
    ...(usage === undefined ? {} : { usage }),
  });
  s.append("step/end", { turn, step: n });
}

function turnWith(driver: LogDriver, steps: readonly (Usage | undefined)[], end?: TurnEndReason): void {
  const s = driver.session;
  const turn = s.lastTurn + 1;
  s.append("turn/start", { turn, trigger: "send" });
  s.append("user/message", { content: [text(`prompt ${turn}`)], source: "user" });
  steps.forEach((usage, i) => {
    step(driver, turn, i + 1, usage);
  });
  if (end !== undefined) s.append("turn/end", { turn, reason: end });
}

/**
 * Turn 1: LogDriver's tool round trip (2 steps, 10 in / 5 out each). Turn 2: two steps with
 * cache traffic, aborted. Turn 3: one step without usage, error. Turn 4: one step, still open.
 */
function log(): Session {
  const driver = new LogDriver(newSession()).turn({
    prompt: "What is in notes.txt?",
    steps: [
      { text: "Let me read it.", toolCalls: [{ name: "read", args: '{"path":"notes.txt"}', result: "buy milk" }] },
      { text: "It says: buy milk." },
    ],
  });
  turnWith(
    driver,
    [
      { inputTokens: 1200, cacheReadTokens: 34_000, cacheWriteTokens: 600, outputTokens: 1500, reasoningTokens: 7 },
      { inputTokens: 30, cacheReadTokens: 35_000, cacheWriteTokens: 0, outputTokens: 250 },
    ],
    { kind: "aborted", reason: "user pressed Ctrl-C" },
  );
  turnWith(driver, [undefined], { kind: "error", step: 1, message: "boom", code: "provider-error" });
  turnWith(driver, [{ inputTokens: 1, cacheReadTokens: 2, cacheWriteTokens: 3, outputTokens: 4 }]);
  return driver.session;
}

describe("tallyTurn", () => {
  const events = log().events;

  test("sums every step's usage of the turn and counts its steps (a tool round trip)", () => {
    expect(tallyTurn(events, 1)).toEqual({
      turn: 1,
      steps: 2,
      usage: { inputTokens: 20, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 10 },
      reason: { kind: "completed" },
    });
  });

  test("sums the four buckets across steps, ignoring other turns (reasoning tokens are not a bucket)", () => {
    expect(tallyTurn(events, 2)).toEqual({
      turn: 2,
      steps: 2,
      usage: { inputTokens: 1230, cacheReadTokens: 69_000, cacheWriteTokens: 600, outputTokens: 1750 },
      reason: { kind: "aborted", reason: "user pressed Ctrl-C" },
    });
  });

  test("a turn whose messages carry no usage tallies zero", () => {
    expect(tallyTurn(events, 3)).toEqual({
      turn: 3,
      steps: 1,
      usage: ZERO,
      reason: { kind: "error", step: 1, message: "boom", code: "provider-error" },
    });
  });

  test("an open turn has no reason key; an unknown turn is empty", () => {
    const open = tallyTurn(events, 4);
    expect(open).toEqual({
      turn: 4,
      steps: 1,
      usage: { inputTokens: 1, cacheReadTokens: 2, cacheWriteTokens: 3, outputTokens: 4 },
    });
    expect("reason" in open).toBe(false);
    const none = tallyTurn(events, 9);
    expect(none).toEqual({ turn: 9, steps: 0, usage: ZERO });
    expect("reason" in none).toBe(false);
  });

  test("is a fold over the events as given: a prefix of the log sees the turn so far", () => {
    const all = log().events;
    const cut = all.findIndex((e) => e.type === "turn/start" && (e.data as { turn: number }).turn === 2);
    // Turn 2's first step only: its step/start … step/end, no turn/end yet.
    const firstStepEnd = all.findIndex((e, i) => i > cut && e.type === "step/end");
    expect(tallyTurn(all.slice(0, firstStepEnd + 1), 2)).toEqual({
      turn: 2,
      steps: 1,
      usage: { inputTokens: 1200, cacheReadTokens: 34_000, cacheWriteTokens: 600, outputTokens: 1500 },
    });
  });
});

describe("cacheHitShare", () => {
  test("is cache read over the whole prompt (input + read + write)", () => {
    expect(cacheHitShare({ inputTokens: 10, cacheReadTokens: 30, cacheWriteTokens: 60, outputTokens: 999 })).toBe(0.3);
    expect(cacheHitShare({ inputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 0 })).toBe(0);
    expect(cacheHitShare({ inputTokens: 0, cacheReadTokens: 7, cacheWriteTokens: 0, outputTokens: 0 })).toBe(1);
  });

  test("is undefined when no prompt tokens were billed (output alone does not count)", () => {
    expect(cacheHitShare(ZERO)).toBeUndefined();
    expect(cacheHitShare({ ...ZERO, outputTokens: 42 })).toBeUndefined();
  });
});

describe("formatFooter", () => {
  test("one line with thousands separators, the hit share to one decimal, the cost to five places, and the end reason", () => {
    const tally = tallyTurn(log().events, 2);
    // 1230·3 + 69000·0.3 + 600·3.75 + 1750·15 = 52,890 µ$ under claude-sonnet-4-5's prices.
    expect(formatFooter(tally, 0.05289)).toBe(
      "── turn 2 · 2 steps · input 1,230 · cache read 69,000 · cache write 600 · output 1,750 · cache hit 97.4% · $0.05289 · aborted: user pressed Ctrl-C",
    );
  });

  test("one step, no usage, no pricing: singular step, '-' share and cost n/a", () => {
    expect(formatFooter({ turn: 1, steps: 1, usage: ZERO, reason: { kind: "completed" } }, undefined)).toBe(
      "── turn 1 · 1 step · input 0 · cache read 0 · cache write 0 · output 0 · cache hit - · cost n/a · completed",
    );
  });

  test("zero steps, a zero cost, and millions", () => {
    expect(
      formatFooter(
        {
          turn: 12,
          steps: 0,
          usage: { inputTokens: 1_234_567, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 0 },
        },
        0,
      ),
    ).toBe(
      "── turn 12 · 0 steps · input 1,234,567 · cache read 0 · cache write 0 · output 0 · cache hit 0.0% · $0.00000",
    );
  });

  const reasons: [TurnEndReason, string][] = [
    [{ kind: "completed" }, "completed"],
    [{ kind: "aborted", reason: "interrupted by the user (Ctrl-C)" }, "aborted: interrupted by the user (Ctrl-C)"],
    [{ kind: "error", step: 2, message: "rate limited", code: "rate-limit" }, "error: rate limited"],
    [{ kind: "disposed" }, "disposed"],
    [{ kind: "max-tokens" }, "max-tokens"],
    [{ kind: "rejected", reason: "blocked by policy" }, "rejected: blocked by policy"],
    [{ kind: "interrupted" }, "interrupted"],
  ];

  test.each(reasons)("ends with describeReason(%j)", (reason, described) => {
    expect(describeReason(reason)).toBe(described);
    expect(formatFooter({ turn: 3, steps: 2, usage: ZERO, reason }, undefined)).toBe(
      `── turn 3 · 2 steps · input 0 · cache read 0 · cache write 0 · output 0 · cache hit - · cost n/a · ${described}`,
    );
  });
});

describe("tallyTurn counts what the turn really cost", () => {
  test("a compaction summary call inside the turn adds its usage; a step ended before dispatch is not a step", () => {
    const driver = new LogDriver(newSession());
    const s = driver.session;
    s.append("turn/start", { turn: 1, trigger: "send" });
    s.append("user/message", { content: [text("go")], source: "user" });
    s.append("compact/start", { turn: 1, trigger: "auto" });
    s.append("compact/summary", {
      model: "m",
      start: 0,
      end: 0,
      regionTokens: 900,
      summaryTokens: 20,
      usage: { inputTokens: 100, cacheReadTokens: 800, cacheWriteTokens: 0, outputTokens: 20 },
    });
    s.append("compact/end", { turn: 1 });
    step(driver, 1, 1, { inputTokens: 10, cacheReadTokens: 0, cacheWriteTokens: 5, outputTokens: 3 });
    s.append("step/start", { turn: 1, step: 2 });
    s.append("step/end", { turn: 1, step: 2, dispatched: false });
    s.append("turn/end", { turn: 1, reason: { kind: "aborted", reason: "esc" } });
    // A summary with a malformed usage (open JSON payload) adds nothing.
    s.append("turn/start", { turn: 2, trigger: "compact" });
    s.append("compact/start", { turn: 2, trigger: "manual" });
    s.append("compact/summary", { usage: { inputTokens: "many" } });
    s.append("compact/end", { turn: 2, error: "no" });
    s.append("turn/end", { turn: 2, reason: { kind: "completed" } });

    expect(tallyTurn(s.events, 1)).toEqual({
      turn: 1,
      steps: 1,
      usage: { inputTokens: 110, cacheReadTokens: 800, cacheWriteTokens: 5, outputTokens: 23 },
      reason: { kind: "aborted", reason: "esc" },
    });
    // Turn 2 is a manual compaction whose compact/end failed: the tally carries that error.
    expect(tallyTurn(s.events, 2)).toEqual({
      turn: 2,
      steps: 0,
      usage: ZERO,
      reason: { kind: "completed" },
      compactionError: "no",
    });
  });
});
