// Replay works through what a real session holds: resumed instances (a new agent per `resume`
// snapshot), forks (the seed replayed under the parent's id, then forked), compaction (the logged
// summary answers the summary call), MCP tool lists (from the logged header, no server started),
// structured output with a repair round, provider failures, cancelled turns and crash repair —
// each replayed identical with unchanged options, and each changed option caught where it acts.
import { readFile, writeFile } from "node:fs/promises";
import { z } from "zod";
import { describe, expect, test } from "vitest";
import { createCompaction } from "../../src/compaction/index.js";
import type { ProviderRequest, ScriptedReply } from "../../src/llm/index.js";
import { createAgent, forkAgent, resumeAgent } from "../../src/loop/index.js";
import { mcpTools } from "../../src/mcp/index.js";
import type { Message } from "../../src/messages/index.js";
import { replaySession } from "../../src/replay/index.js";
import type { JsonlSessionStore } from "../../src/store/index.js";
import { inProcessServer } from "../mcp/support.js";
import type { TempJsonlRoot } from "../store/jsonl-harness.js";
import { appOptions, contributor, record, scripted, TOOL_TURN, useTempStore } from "./support.js";

let dir: TempJsonlRoot;
let store: JsonlSessionStore;
useTempStore((temp) => {
  ({ dir, store } = temp);
});

const kinds = (report: { differences: readonly { segment: { kind: string } }[] }): string[] =>
  report.differences.map((d) => d.segment.kind);

describe("instances, forks and compaction", () => {
  test("a resumed session replays each instance in an agent of its own: the prefix composed per instance", async () => {
    let compositions = 0;
    const counting = contributor("instanceCounter", () => `instance ${++compositions}`);
    const options = appOptions(scripted([...TOOL_TURN, ...TOOL_TURN, ...TOOL_TURN]), { store, plugins: [counting] });
    const id = await record(options, ["one"]);
    for (const prompt of ["two", "three"]) {
      const resumed = await resumeAgent(store, id, options);
      await resumed.send(prompt);
      await resumed.dispose();
    }
    compositions = 0;
    const report = await replaySession(store, id, options);
    expect(report.differences).toEqual([]);
    expect(report.requests).toEqual({ logged: 6, replayed: 6, identical: 6 });
    expect(compositions).toBe(3); // one composition per loop instance, as logged
  });

  test("a fork replays its seed under the parent's id, then forks: {{sessionId}} in the system prompt matches", async () => {
    const options = appOptions(scripted([...TOOL_TURN, ...TOOL_TURN, ...TOOL_TURN]), {
      store,
      system: "You are session {{sessionId}}.",
    });
    const parent = await record(options, ["one", "two"]);
    const child = await forkAgent(store, parent, options);
    await child.send("three (in the fork)");
    await child.dispose();
    const report = await replaySession(store, child.session.id, options);
    expect(report.differences).toEqual([]);
    expect(report.requests.logged).toBe(6);
    // with a seed replayed under the child's own id, the inherited requests would differ (and say so)
    const changed = await replaySession(store, child.session.id, { ...options, system: "You are {{sessionId}}!" });
    expect(changed.differences.filter((d) => d.inherited)).toHaveLength(4);
    expect(changed.differences.filter((d) => !d.inherited)).toHaveLength(2);
  });

  test("compaction replays from the logged summary; a lower threshold now compacts elsewhere: history differs", async () => {
    const words = (n: number, seed: number): string =>
      Array.from({ length: n }, (_, i) => `w${(seed * 31 + i * 7) % 97}`).join(" ");
    const isSummary = (r: ProviderRequest): boolean =>
      (r.messages.at(-1) as Message).content.some((b) => b.type === "text" && b.text.startsWith("Write a checkpoint"));
    let n = 0;
    const provider = scripted([]);
    const model = (r: ProviderRequest): ScriptedReply =>
      isSummary(r)
        ? { text: `<checkpoint>\nIntent: keep going ${n++}.\n</checkpoint>` }
        : { text: `done ${words(60, n++)}` };
    const base = appOptions(provider, {
      store,
      system: "You are terse.",
      model: "emulator:emulator-anthropic",
      compaction: createCompaction({ contextWindow: 3_000, keepRecentTokens: 300, summaryMaxTokens: 100 }),
    });
    provider.push(...Array.from({ length: 40 }, () => model));
    const id = await record(
      base,
      Array.from({ length: 8 }, (_, i) => `task ${i} ${words(300, i)}`),
    );
    const logged = (await store.load(id, { readOnly: true })).session.events;
    expect(logged.filter((e) => e.type === "compact/summary").length).toBeGreaterThan(0);
    const report = await replaySession(store, id, base);
    expect(report.differences).toEqual([]);
    expect(report.turns).toEqual([]);
    const earlier = await replaySession(store, id, {
      ...base,
      compaction: createCompaction({ contextWindow: 2_000, keepRecentTokens: 300, summaryMaxTokens: 100 }),
    });
    expect(earlier.identical).toBe(false);
    expect(kinds(earlier)[0]).toBe("history");
  });
});

describe("MCP tools", () => {
  test("the logged tool list replays without starting a server (list_changed included); with the server, identical too", async () => {
    const mcp = () => mcpTools({ servers: { fx: inProcessServer() }, permissions: { mode: "allow" } });
    const options = appOptions(
      scripted([
        { toolCalls: [{ name: "mcp__fx__echo", arguments: { text: "hi" } }] },
        { toolCalls: [{ name: "mcp__fx__add_tool", arguments: { name: "shout" } }] },
        { toolCalls: [{ name: "mcp__fx__shout", arguments: { text: "hey" } }] },
        { text: "done" },
      ]),
      { store, plugins: [mcp()] },
    );
    const id = await record(options, ["use the docs server"]);
    const { session } = await store.load(id, { readOnly: true });
    // the server's list changed mid-turn: a second header record
    expect(session.events.filter((e) => e.type.startsWith("request/header")).length).toBe(2);
    const offline = await replaySession(store, id, { ...options, plugins: [] });
    expect(offline.differences).toEqual([]);
    const live = await replaySession(store, id, { ...options, plugins: [mcp()] });
    expect(live.differences).toEqual([]);
  });
});

describe("structured output", () => {
  test("a turn with an output schema and a repair round replays identical; a stricter schema now is a config difference", async () => {
    const Plan = z.object({ steps: z.array(z.string()) });
    const options = appOptions(scripted([{ text: "not json" }, { text: '{"steps":["ship"]}' }]), { store });
    const agent = createAgent(options);
    const outcome = await agent.send("plan it", { output: Plan });
    expect(outcome.output).toEqual({ steps: ["ship"] });
    await agent.dispose();
    const id = agent.session.id;
    expect((await replaySession(store, id, options)).differences).toEqual([]);
    const stricter = z.object({ steps: z.array(z.string()).min(2) });
    const report = await replaySession(store, id, { ...options, outputFor: () => stricter });
    expect(report.differences[0]!.segment).toEqual({ kind: "config", key: "output" });
    expect(report.differences[0]!.explainedBy?.text).toBe("request/header (initial)");
  });
});

describe("turns cut short", () => {
  test("a provider failure, a cancelled turn and a crash-repaired turn replay identical, and stop where the log stops", async () => {
    const provider = scripted([
      { error: { message: "overloaded", code: "overloaded", retryable: false } },
      "hang",
      ...TOOL_TURN,
      ...TOOL_TURN,
    ]);
    const options = appOptions(provider, { store, retry: { maxAttempts: 1 } });
    const agent = createAgent(options);
    expect((await agent.send("fails")).reason).toMatchObject({ kind: "error", code: "overloaded" });
    const hanging = agent.send("hangs");
    while (provider.requests.length < 2) await new Promise((r) => setImmediate(r));
    agent.cancel("user pressed stop");
    expect((await hanging).reason).toEqual({ kind: "aborted", reason: "user pressed stop" });
    await agent.send("works");
    await agent.send("crashes after its tool ran");
    await agent.dispose();
    const id = agent.session.id;
    // a crash after the tool result of the last turn: the file loses the rest, a writable load repairs it
    const file = store.fileOf(id);
    const lines = (await readFile(file, "utf8")).trimEnd().split("\n");
    const lastResult = lines.findLastIndex((l) => l.includes('"type":"tool/result"'));
    await writeFile(file, `${lines.slice(0, lastResult + 1).join("\n")}\n`);
    const other = dir.open();
    const { repaired } = await other.load(id);
    expect(repaired.at(-1)?.data).toMatchObject({ reason: { kind: "interrupted" } });
    await other.close();

    const report = await replaySession(store, id, options);
    expect(report.differences).toEqual([]);
    expect(report.turns).toEqual([]);
    expect(report.requests.logged).toBe(report.requests.replayed);
  });
});
