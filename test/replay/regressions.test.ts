// The regressions users hit, each caught by a replay of a session recorded before the change, with
// the exact segment, the logged event that explains it and the predicted cache cost (Anthropic
// rules, claude-sonnet-4-5 prices: a lost read is paid as a write, 3.75 − 0.30 $/MTok).
import { mkdir, readdir, stat, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { canonicalJson, type JsonValue } from "../../src/json/index.js";
import { estimateTokens } from "../../src/llm/index.js";
import type { AgentPlugin } from "../../src/loop/index.js";
import { reconstructRequests, type ReconstructedRequest } from "../../src/reconstruct/index.js";
import { replayReportText, replaySession } from "../../src/replay/index.js";
import type { JsonlSessionStore } from "../../src/store/index.js";
import { fixedClock } from "../support/builders.js";
import type { TempJsonlRoot } from "../store/jsonl-harness.js";
import {
  appOptions,
  contributor,
  LONG_SYSTEM,
  readToolWithEncoding,
  record,
  scripted,
  TOOL_TURN,
  useTempStore,
} from "./support.js";

let dir: TempJsonlRoot;
let store: JsonlSessionStore;
useTempStore((temp) => {
  ({ dir, store } = temp);
});

const PRICE = (3.75 - 0.3) / 1_000_000;
const tokensOf = (value: unknown): number =>
  estimateTokens(typeof value === "string" ? value : canonicalJson(value as JsonValue));
/** Estimated tokens of a whole request as cache blocks: tools, system, prefix, history. */
const requestTokens = (r: ReconstructedRequest): number =>
  [...(r.request.tools ?? []), r.request.system, ...(r.header.messagePrefix ?? []), ...r.history].reduce<number>(
    (n, block) => n + (block === undefined ? 0 : tokensOf(block)),
    0,
  );

async function loggedRequests(id: string): Promise<ReconstructedRequest[]> {
  return reconstructRequests((await store.load(id, { readOnly: true })).session.events);
}

describe("caught by replay", () => {
  test("a plugin that adds a timestamp to the system prompt: system, its last line, every request's cache", async () => {
    const options = appOptions(scripted([...TOOL_TURN, ...TOOL_TURN]), { store });
    const id = await record(options, ["one", "two"]);
    const clock = fixedClock(Date.UTC(2026, 11, 5, 9));
    const timestamp: AgentPlugin = (host) =>
      host.on("system-prompt/assemble", async (_payload, next) => [
        ...(await next()),
        { name: "time", order: 100, text: `Current time: ${new Date(clock()).toISOString()}` },
      ]);
    const report = await replaySession(store, id, { ...options, plugins: [timestamp] });

    expect(report.identical).toBe(false);
    expect(report.differences.map((d) => d.segment)).toEqual(
      Array(4).fill({ kind: "system", line: LONG_SYSTEM.split("\n").length + 1 }),
    );
    const [first, second] = report.differences;
    expect(first).toMatchObject({
      turn: 1,
      step: 1,
      logged: "(ends before this line)",
      replayed: '"\\nCurrent time: 2026-12-05T09:00:00.000Z"',
      explainedBy: { type: "request/header", text: "request/header (initial)" },
    });
    // The first request read nothing from cache; each later one read its predecessor whole and
    // now reads nothing (tools alone are under the 1,024-token minimum), on every request.
    expect(first!.cache).toMatchObject({ expectedTokens: 0, lostTokens: 0 });
    const logged = await loggedRequests(id);
    const expected = requestTokens(logged[0]!);
    expect(expected).toBeGreaterThan(1024);
    expect(second!.cache).toEqual({
      model: "anthropic:claude-sonnet-4-5",
      expectedTokens: expected,
      lostTokens: expected,
      recurringLostTokens: expected,
      cost: expected * PRICE,
    });
    const all = report.differences.reduce((n, d) => n + d.cache.expectedTokens, 0);
    expect(report.cache).toEqual({ lostTokens: all, recurringLostTokens: all, onceLostTokens: 0, cost: all * PRICE });
    const text = replayReportText(report);
    expect(text).toContain("request 2 · turn 1 step 2");
    expect(text).toContain("system line 62");
    expect(text).toContain(
      `${expected.toLocaleString("en-US")} of ${expected.toLocaleString("en-US")} cached tokens no longer read`,
    );
  });

  test("a contributor whose output depends on file order: the prefix message, named by its contributor, once per deploy", async () => {
    const notes = join(dir.root, "notes");
    await mkdir(notes);
    await writeFile(join(notes, "a.md"), "alpha");
    await writeFile(join(notes, "b.md"), "beta");
    await utimes(join(notes, "a.md"), 1000, 1000);
    await utimes(join(notes, "b.md"), 2000, 2000);
    // Lists the notes newest first: the order changes when a file is touched, not its content.
    let files: string[] = [];
    const refresh = async (): Promise<void> => {
      const names = await readdir(notes);
      const times = await Promise.all(names.map(async (n) => (await stat(join(notes, n))).mtimeMs));
      files = names
        .map((n, i) => ({ n, t: times[i]! }))
        .sort((x, y) => y.t - x.t)
        .map((x) => x.n);
    };
    const recentNotes = contributor("recentNotes", () => `Notes: ${files.join(", ")}`);
    await refresh();
    const options = appOptions(scripted([...TOOL_TURN, ...TOOL_TURN]), { store, plugins: [recentNotes] });
    const id = await record(options, ["one", "two"]);
    await utimes(join(notes, "a.md"), 3000, 3000); // someone edited a.md: same files, new order
    await refresh();
    const report = await replaySession(store, id, options);

    expect(report.differences.map((d) => d.segment)).toEqual(
      Array(4).fill({ kind: "prefix", index: 0, contributor: "recentNotes" }),
    );
    expect(report.differences[0]).toMatchObject({
      logged: '{"content":[{"text":"Notes: b.md, a.md","type":"text"}],"role":"user"}',
      replayed: '{"content":[{"text":"Notes: a.md, b.md","type":"text"}],"role":"user"}',
      explainedBy: { type: "request/header", text: "request/header (initial)" },
    });
    // Against the cache the logged session warmed, each later request keeps only tools + system;
    // the rebuilt requests extend each other, so nothing recurs: the cost comes once per deploy.
    const logged = await loggedRequests(id);
    const head = tokensOf(logged[0]!.request.tools![0]) + tokensOf(LONG_SYSTEM);
    const second = report.differences[1]!.cache;
    expect(second).toEqual({
      model: "anthropic:claude-sonnet-4-5",
      expectedTokens: requestTokens(logged[0]!),
      lostTokens: requestTokens(logged[0]!) - head,
      recurringLostTokens: 0,
      cost: (requestTokens(logged[0]!) - head) * PRICE,
    });
    expect(replayReportText(report)).toContain("prefix message 0 (contributor recentNotes)");
  });

  test("a tool whose schema gains a field: the tool, the path of the new field, the whole cache", async () => {
    const options = appOptions(scripted([...TOOL_TURN, ...TOOL_TURN]), { store });
    const id = await record(options, ["one", "two"]);
    const report = await replaySession(store, id, { ...options, tools: [readToolWithEncoding] });

    expect(report.differences.map((d) => d.segment)).toEqual(
      Array(4).fill({ kind: "tool", name: "read", change: "changed", path: "read.inputSchema.properties.encoding" }),
    );
    expect(report.differences[0]).toMatchObject({
      logged: "(absent)",
      replayed: '{"enum":["utf8","base64"],"type":"string"}',
      explainedBy: { seq: expect.any(Number), text: "request/header (initial)" },
    });
    // Tools come first in the cache: every cached token of every later request is lost, once.
    const logged = await loggedRequests(id);
    const costs = report.differences.map((d) => d.cache);
    expect(costs.map((c) => c.lostTokens)).toEqual([
      0,
      requestTokens(logged[0]!),
      requestTokens(logged[1]!),
      requestTokens(logged[2]!),
    ]);
    expect(costs.map((c) => c.recurringLostTokens)).toEqual([0, 0, 0, 0]);
    // for the session: once, the largest of them (where the new schema meets the old cache)
    expect(report.cache).toEqual({
      lostTokens: requestTokens(logged[2]!),
      recurringLostTokens: 0,
      onceLostTokens: requestTokens(logged[2]!),
      cost: requestTokens(logged[2]!) * PRICE,
    });
    expect(replayReportText(report)).toContain("tool read (changed at read.inputSchema.properties.encoding)");
  });
});
