// Chat's slash commands through runSlashCommand, with a ChatContext over a real agent
// (createAgent + ScriptedProvider, no store) and a `say` that records what would be printed.
import { describe, expect, test, vi } from "vitest";
import { type ChatContext, runSlashCommand, SLASH_COMMANDS } from "../../src/cli/chat-commands.js";
import { createCompaction } from "../../src/compaction/index.js";
import { ScriptedProvider, type ScriptedStep } from "../../src/llm/index.js";
import { type Agent, type AgentOptions, createAgent } from "../../src/loop/index.js";
import { forkSession } from "../../src/session/index.js";
import { fixedClock } from "../support/builders.js";
import { prefixContributor, readTool, user } from "../loop/support.js";
import { cliInvocation } from "../../src/cli/invocation.js";

// /cache counts tokens with the emulator's cl100k tokenizer, whose first use costs ~2.5 s; the
// real tokenizer is exercised by the subprocess test (chat.test.ts). Here: ≈ 4 characters a token.
vi.mock("../../src/emulator/index.js", () => ({ countTokens: (text: string) => Math.ceil(text.length / 4) }));

const SONNET = "anthropic:claude-sonnet-4-5";
const fileOf = (id: string): string => `/home/k/sessions/${id}.jsonl`;

interface Rig {
  readonly ctx: ChatContext;
  readonly said: string[];
  /** Turns whose footer the command asked for. */
  readonly footers: number[];
  readonly forks: Agent[];
  readonly agent: () => Agent;
}

function agentOver(replies: readonly ScriptedStep[], extra: Partial<AgentOptions> = {}): Agent {
  const provider = new ScriptedProvider(replies, { fallback: { text: "done" } });
  return createAgent({
    provider,
    model: SONNET,
    system: "You are a careful assistant.",
    tools: [readTool],
    clock: fixedClock(),
    cwd: "/ws",
    sessionId: "s-chat",
    ...extra,
  });
}

/** A context whose `fork` continues in an in-memory fork of the current session (as chat does over the store). */
function rig(first: Agent): Rig {
  let agent = first;
  const said: string[] = [];
  const footers: number[] = [];
  const forks: Agent[] = [];
  const ctx: ChatContext = {
    get agent() {
      return agent;
    },
    fileOf,
    say: (text) => said.push(text),
    footer: (turn) => footers.push(turn),
    fork: async () => {
      const child = createAgent({
        provider: agent.provider,
        model: agent.model,
        system: "You are a careful assistant.",
        session: forkSession(agent.session, { id: "s-child", clock: fixedClock() }),
      });
      await agent.dispose();
      forks.push(child);
      agent = child;
      return child;
    },
  };
  return { ctx, said, footers, forks, agent: () => agent };
}

const LIST = SLASH_COMMANDS.map((c) => `/${c.name}`).join(" ");

describe("runSlashCommand", () => {
  test("the command set", () => {
    expect(LIST).toBe("/help /session /tools /prompts /prompt /cache /compact /fork /exit");
  });

  test("/help lists every command with its help, and the keys", async () => {
    const { ctx, said } = rig(agentOver([]));
    expect(await runSlashCommand(ctx, "/help")).toBeUndefined();
    expect(said).toHaveLength(1);
    const lines = said[0]!.split("\n");
    expect(lines.slice(0, SLASH_COMMANDS.length)).toEqual(
      SLASH_COMMANDS.map((c) => `  /${c.name.padEnd(8)} ${c.help}`),
    );
    expect(lines.slice(SLASH_COMMANDS.length)).toEqual([
      "  Ctrl-C    cancel the running turn; press it again (or at the prompt, twice) to exit",
      "  anything else is sent to the model as your next message",
    ]);
    await ctx.agent.dispose();
  });

  test.each([["/nope"], ["/nope with args"], ["/"], ["/HELP"]])(
    "%j is unknown: answered with the list, never sent to the model",
    async (line) => {
      const agent = agentOver([]);
      const { ctx, said } = rig(agent);
      expect(await runSlashCommand(ctx, line)).toBeUndefined();
      const word = line.slice(1).split(" ")[0];
      expect(said).toEqual([`  unknown command /${word}; commands: ${LIST}`]);
      expect(agent.session.length).toBe(0);
      await agent.dispose();
    },
  );

  test.each([["/exit"], ["/quit"], ["  /exit  now "]])("%j ends the chat", async (line) => {
    const { ctx, said } = rig(agentOver([]));
    expect(await runSlashCommand(ctx, line.trim())).toBe("exit");
    expect(said).toEqual([]);
    await ctx.agent.dispose();
  });

  test("/session shows id, log, model, cwd, turns, and the prefix as request-only messages", async () => {
    const catalog = prefixContributor("catalog", [user("<system-reminder>\nskills: a, b\n</system-reminder>")]);
    const baseline = prefixContributor("baseline", [user("<system-reminder>Working directory: /ws</system-reminder>")]);
    const agent = agentOver([{ toolCalls: [{ name: "read", arguments: { path: "a.txt" } }] }, { text: "it is a" }], {
      plugins: [catalog.plugin, baseline.plugin],
    });
    const { ctx, said } = rig(agent);
    await agent.send("what is in a.txt?");
    await agent.send("thanks");
    expect(await runSlashCommand(ctx, "/session")).toBeUndefined();
    expect(agent.session.deriveMessages()).toHaveLength(6); // user, call, result, answer, user, answer: no prefix
    expect(said).toEqual([
      [
        "  session  s-chat",
        "  log      /home/k/sessions/s-chat.jsonl",
        "  model    anthropic:claude-sonnet-4-5",
        "  cwd      /ws",
        `  turns    2 · ${agent.session.length} events · 6 messages in history`,
        "  prefix   2 request-only messages (logged on the request header, not in history):",
        "           - <system-reminder> skills: a, b </system-reminder>",
        "           - <system-reminder>Working directory: /ws</system-reminder>",
      ].join("\n"),
    ]);
    await agent.dispose();
  });

  test("/session with one prefix message, with none, and before any turn", async () => {
    const one = prefixContributor("one", [user("x".repeat(200))]);
    const withOne = agentOver([], { plugins: [one.plugin] });
    const a = rig(withOne);
    await withOne.send("hi");
    await runSlashCommand(a.ctx, "/session");
    expect(a.said[0]).toContain("  prefix   1 request-only message (logged on the request header, not in history):\n");
    expect(a.said[0]!.split("\n").at(-1)).toBe(`           - ${"x".repeat(89)}…`);
    await withOne.dispose();

    const bare = agentOver([]);
    const b = rig(bare);
    await runSlashCommand(b.ctx, "/session");
    expect(b.said[0]).toContain("\n  turns    0 · 0 events · 0 messages in history\n");
    await bare.send("hi");
    await runSlashCommand(b.ctx, "/session");
    expect(b.said[1]!.split("\n").slice(-2)).toEqual([
      `  turns    1 · ${bare.session.length} events · 2 messages in history`,
      "  prefix   none",
    ]);
    await bare.dispose();
  });

  test("/cache renders the cache report of the live session", async () => {
    const agent = agentOver([
      { text: "one", usage: { inputTokens: 100, cacheWriteTokens: 2000, outputTokens: 10 } },
      { text: "two", usage: { inputTokens: 20, cacheReadTokens: 2000, outputTokens: 6 } },
    ]);
    const { ctx, said } = rig(agent);
    await agent.send("first");
    await agent.send("second");
    expect(await runSlashCommand(ctx, "/cache")).toBeUndefined();
    expect(said).toHaveLength(1);
    const report = said[0]!;
    expect(report).toMatch(/^cache report for session s-chat \(2 requests; ≈ = estimated with cl100k\)\n/);
    expect(report).toMatch(/\n1\.1 .* {7}0 {4}2000 {5}100 {6}10 .*\(first request\)\n/);
    expect(report).toMatch(/\n2\.1 .* {4}2000 {7}0 {6}20 {7}6 /);
    expect(report).toContain("totals: ");
    // (120·3 + 2000·0.3 + 2000·3.75 + 16·15) / 1e6 under claude-sonnet-4-5; 2000 / 4120 read
    expect(report).toMatch(/\ncache-hit share 48\.5% · cost \$0\.00870$/);
    await agent.dispose();
  });

  test("/fork forks through ctx.fork, prints both ids, and later commands run in the child", async () => {
    const agent = agentOver([{ text: "hello" }]);
    const { ctx, said, forks } = rig(agent);
    await agent.send("hi");
    expect(await runSlashCommand(ctx, "/fork")).toBeUndefined();
    expect(forks).toHaveLength(1);
    expect(said).toEqual([
      `  forked s-chat → s-child; now chatting in the fork (resume the parent with: ${cliInvocation()} chat --resume s-chat)`,
    ]);
    await runSlashCommand(ctx, "/session");
    expect(said[1]!.split("\n").slice(0, 2)).toEqual([
      "  session  s-child (fork of s-chat)",
      "  log      /home/k/sessions/s-child.jsonl",
    ]);
    expect(said[1]).toContain("\n  turns    1 · ");
    await ctx.agent.dispose();
  });

  test("/fork failing (nothing to fork yet) propagates to the chat loop, printing nothing", async () => {
    const agent = agentOver([]);
    const { ctx, said } = rig(agent);
    await expect(runSlashCommand(ctx, "/fork")).rejects.toThrow(/turn\/end|fork/);
    expect(said).toEqual([]);
    await agent.dispose();
  });

  test("/compact with nothing worth summarizing says so in plain words (the view also prints the compact/end line)", async () => {
    const agent = agentOver([{ text: "short" }], { compaction: createCompaction() });
    const { ctx, said, footers } = rig(agent);
    await agent.send("hi");
    expect(await runSlashCommand(ctx, "/compact")).toBeUndefined();
    expect(said).toEqual([
      "  nothing to compact: the history is no longer than the recent part compaction always keeps, so there is no older part to summarize",
    ]);
    expect(footers).toEqual([2]); // the compaction turn gets its footer
    expect(agent.session.events.at(-2)).toMatchObject({
      type: "compact/end",
      data: { turn: 2, error: expect.any(String) },
    });
    await agent.dispose();
  });

  test("/compact reports the summarized region and the summary's size", async () => {
    const agent = agentOver(
      [
        { text: "first answer ".repeat(40) },
        { text: "second answer ".repeat(40) },
        { text: "third" },
        { text: "<checkpoint>intent: test</checkpoint>" },
      ],
      { compaction: createCompaction({ keepRecentTokens: 10 }) },
    );
    const { ctx, said, footers } = rig(agent);
    await agent.send("hi ".repeat(50));
    await agent.send("more ".repeat(50));
    await agent.send("last");
    expect(await runSlashCommand(ctx, "/compact")).toBeUndefined();
    const summary = agent.session.events.find((e) => e.type === "compact/summary")!.data as {
      regionTokens: number;
      summaryTokens: number;
    };
    expect(said).toEqual([
      `  compacted: ${summary.regionTokens} tokens of history → a ${summary.summaryTokens}-token summary`,
    ]);
    expect(summary.summaryTokens).toBeLessThan(summary.regionTokens);
    expect(footers).toEqual([4]);
    await agent.dispose();
  });
});
