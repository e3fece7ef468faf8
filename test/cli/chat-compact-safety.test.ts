// Issue #12 (CLI): a `/compact` that cannot compact says so in plain words, and the turn footer
// of a compaction that failed does not say "completed".
import { describe, expect, test, vi } from "vitest";
import { type ChatContext, runSlashCommand } from "../../src/cli/chat-commands.js";
import { formatFooter, tallyTurn } from "../../src/cli/turn-footer.js";
import { createCompaction } from "../../src/compaction/index.js";
import { ScriptedProvider, type ScriptedStep } from "../../src/llm/index.js";
import { type Agent, type AgentOptions, createAgent } from "../../src/loop/index.js";
import { fixedClock, LogDriver, newSession, text } from "../support/builders.js";

// /compact's cache report is not used here, but chat-commands imports the emulator's tokenizer.
vi.mock("../../src/emulator/index.js", () => ({ countTokens: (t: string) => Math.ceil(t.length / 4) }));

function agentOver(replies: readonly ScriptedStep[], extra: Partial<AgentOptions> = {}): Agent {
  return createAgent({
    provider: new ScriptedProvider(replies, { fallback: { text: "done" } }),
    model: "anthropic:claude-sonnet-4-5",
    system: "You are a careful assistant.",
    clock: fixedClock(),
    cwd: "/ws",
    sessionId: "s-compact",
    ...extra,
  });
}

/** A chat context that records what /compact says and the footer line it asks for. */
function rig(agent: Agent): { ctx: ChatContext; said: string[]; footers: string[] } {
  const said: string[] = [];
  const footers: string[] = [];
  const ctx: ChatContext = {
    agent,
    fileOf: (id) => `/sessions/${id}.jsonl`,
    say: (line) => said.push(line),
    footer: (turn) => footers.push(formatFooter(tallyTurn(agent.session.events, turn), undefined)),
    fork: async () => agent,
  };
  return { ctx, said, footers };
}

describe("/compact that cannot compact", () => {
  test("with a history shorter than what compaction keeps, it says there is nothing to compact, and the footer says the compaction failed", async () => {
    const agent = agentOver([{ text: "short" }], { compaction: createCompaction() });
    const { ctx, said, footers } = rig(agent);
    await agent.send("hi");
    await runSlashCommand(ctx, "/compact");

    expect(said).toEqual([
      "  nothing to compact: the history is no longer than the recent part compaction always keeps, so there is no older part to summarize",
    ]);
    expect(footers).toHaveLength(1);
    expect(footers[0]).toMatch(/^── turn 2 · .* · compaction failed: .+$/);
    expect(footers[0]).not.toMatch(/completed/);
    await agent.dispose();
  });

  test("without a compaction configured, it says so instead of a raw error", async () => {
    const agent = agentOver([{ text: "short" }]);
    const { ctx, said, footers } = rig(agent);
    await agent.send("hi");
    await runSlashCommand(ctx, "/compact");

    expect(said).toEqual([
      "  no compaction configured: this agent has no `compaction` option, so /compact cannot summarize",
    ]);
    expect(footers[0]).not.toMatch(/completed/);
    await agent.dispose();
  });
});

describe("the footer of a compaction turn", () => {
  /** Turn 1 a manual compaction ending with `compactEnd`; turn 2 a send whose automatic compaction failed. */
  function log(compactEnd: { turn: number; error?: string }) {
    const s = new LogDriver(newSession()).session;
    s.append("turn/start", { turn: 1, trigger: "compact" });
    s.append("compact/start", { turn: 1, trigger: "manual" });
    s.append("compact/end", compactEnd);
    s.append("turn/end", { turn: 1, reason: { kind: "completed" } });
    s.append("turn/start", { turn: 2, trigger: "send" });
    s.append("user/message", { content: [text("go")], source: "user" });
    s.append("compact/start", { turn: 2, trigger: "auto" });
    s.append("compact/end", { turn: 2, error: "summary too long" });
    s.append("turn/end", { turn: 2, reason: { kind: "completed" } });
    return s.events;
  }

  test("a failed manual compaction: the tally carries the error and the footer says 'compaction failed: …'", () => {
    const tally = tallyTurn(log({ turn: 1, error: "no region" }), 1);
    expect(tally.compactionError).toBe("no region");
    expect(formatFooter(tally, undefined)).toMatch(/ · compaction failed: no region$/);
  });

  test("a manual compaction that succeeded ends 'completed', with no compactionError", () => {
    const tally = tallyTurn(log({ turn: 1 }), 1);
    expect("compactionError" in tally).toBe(false);
    expect(formatFooter(tally, undefined)).toMatch(/ · completed$/);
  });

  test("a send turn whose automatic compaction failed still completed: its footer says so", () => {
    const tally = tallyTurn(log({ turn: 1 }), 2);
    expect("compactionError" in tally).toBe(false);
    expect(formatFooter(tally, undefined)).toMatch(/ · completed$/);
  });
});
