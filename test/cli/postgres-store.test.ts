// Issue #14: every session command takes `--store postgres://…` (or $KEELSON_STORE) and works
// the same on the PostgreSQL store as on JSONL — run, resume, fork, sessions, show, requests,
// verify, cache — against the run's throwaway cluster, with the built CLI.
import { readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, test } from "vitest";
import { type FreshDatabase, freshDatabase } from "../support/postgres.js";
import { keelson, sessionIdOf, tempHome } from "./run-keelson.js";

let home: string;
let db: FreshDatabase;
let url: string;
let first: string;

beforeAll(async () => {
  home = await tempHome();
  db = await freshDatabase(inject("pgAdminUrl"));
  url = db.url;
  expect((await keelson(home, ["db", "migrate", "--url", url])).code).toBe(0);
  const run = await keelson(home, ["run", "--store", url, "hello there"]);
  expect(run).toMatchObject({ code: 0, stdout: "Understood: hello there\n" });
  first = sessionIdOf(run);
}, 60_000);

afterAll(async () => {
  await db.drop();
  await rm(home, { recursive: true, force: true });
});

describe("the CLI on the PostgreSQL store", () => {
  test("run writes no JSONL file; resume (store from $KEELSON_STORE) continues the same session", async () => {
    expect(await readdir(join(home, "sessions")).catch(() => [])).toEqual([]);
    const again = await keelson(home, ["resume", first, "once more"], { KEELSON_STORE: url });
    expect(again).toMatchObject({ code: 0, stdout: "Understood: once more\n" });
    expect(sessionIdOf(again)).toBe(first);
    const show = await keelson(home, ["show", "--store", url, first]);
    expect(show).toMatchObject({ code: 0, stderr: "" });
    expect(show.stdout).toContain("user: hello there");
    expect(show.stdout).toContain("user: once more");
    expect(show.stdout).toContain("header snapshot (resume)");
  });

  test("requests, verify and cache read the stored log; --store works before the command name too", async () => {
    const [requests, verify, cache] = await Promise.all([
      keelson(home, ["requests", first, "--store", url]),
      keelson(home, ["--store", url, "verify", first]),
      keelson(home, ["cache", "--json", first], { KEELSON_STORE: url }),
    ]);
    for (const r of [requests, verify, cache]) expect(r).toMatchObject({ code: 0, stderr: "" });
    const list = JSON.parse(requests.stdout) as { turn: number; request: { messages: unknown[] } }[];
    expect(list.length).toBeGreaterThanOrEqual(1);
    expect(verify.stdout).toMatch(/^clean: \d+ events, \d+ turns, \d+ requests \(.*session /);
    expect(verify.stdout).not.toContain(".jsonl");
    expect(JSON.parse(cache.stdout)).toHaveProperty("requests");
  });

  test("fork stores a child in the database; sessions lists both, the child as a fork, with first prompts", async () => {
    const fork = await keelson(home, ["fork", "--store", url, first]);
    expect(fork).toMatchObject({ code: 0, stderr: "" });
    const child = fork.stdout.trim();
    const verify = await keelson(home, ["verify", "--store", url, child]);
    expect(verify).toMatchObject({ code: 0 });
    const sessions = await keelson(home, ["sessions", "--store", url]);
    expect(sessions).toMatchObject({ code: 0, stderr: "" });
    const rows = sessions.stdout.trim().split("\n");
    expect(rows[0]).toMatch(/^id +created +updated +cwd +first prompt$/);
    expect(rows.find((r) => r.startsWith(first))).toContain('"hello there"');
    expect(rows.find((r) => r.startsWith(child))).toContain(`(fork of ${first})`);
    const json = await keelson(home, ["sessions", "--json", "--store", url]);
    const parsed = json.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { id: string; parentSession?: string; firstPrompt?: string });
    expect(parsed.map((p) => p.id)).toEqual([first, child]);
    expect(parsed[1]).toMatchObject({ parentSession: first });
  });

  test("an unknown session is exit 2 naming the database (no password), like on JSONL", async () => {
    const withSecret = new URL(url);
    withSecret.password = "hunter2";
    const show = await keelson(home, ["show", "--store", withSecret.toString(), "no-such-session"]);
    expect(show.code).toBe(2);
    expect(show.stderr).toContain("no-such-session");
    expect(show.stderr).not.toContain("hunter2");
  });
});
