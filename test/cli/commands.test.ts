// Each inspection and session command end to end as a subprocess, over sessions created by
// `keelson run` on the default in-process emulator (no key, no network).
import { mkdir, readdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keelson, type Result, sessionIdOf, tempHome } from "./run-keelson.js";

let home: string;
let text: Result;
let json: Result;
let first: string;
let second: string;

beforeAll(async () => {
  home = await tempHome();
  await mkdir(join(home, "ws"));
  await writeFile(join(home, "ws", "notes.txt"), "Ship the CLI.\n");
  [text, json] = await Promise.all([
    keelson(home, ["run", "hello there"]),
    keelson(home, ["run", "--json", "--cwd", join(home, "ws"), "what is in notes.txt?"]),
  ]);
  first = sessionIdOf(text);
  second = sessionIdOf(json);
}, 60_000);

afterAll(() => rm(home, { recursive: true, force: true }));

describe("keelson run", () => {
  it("streams the answer to stdout, one emulator notice on stderr, exit 0", () => {
    expect(text.code).toBe(0);
    expect(text.stdout).toBe("Understood: hello there\n");
    const notices = text.stderr.split("\n").filter((l) => l.includes("emulator"));
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatch(/ANTHROPIC_API_KEY/);
  });

  it("--json prints every session event as a JSON line ending with turn/end", () => {
    expect(json.code).toBe(0);
    const events = json.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { type: string; seq: number; data: { reason?: { kind: string } } });
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i));
    expect(events[0]!.type).toBe("turn/start");
    expect(events.at(-1)!.type).toBe("turn/end");
    expect(events.at(-1)!.data.reason).toEqual({ kind: "completed" });
    expect(events.map((e) => e.type)).toContain("request/header");
    // The built-in tools are wired: the rule-based model reads the named file in the session cwd.
    expect(events.find((e) => e.type === "tool/call")).toMatchObject({ data: { name: "read" } });
    expect(JSON.stringify(events.find((e) => e.type === "tool/result"))).toContain("Ship the CLI.");
  });
});

describe("inspection commands", () => {
  it("sessions, show, requests, verify, cache and fork print their shapes", async () => {
    const [sessions, show, requests, one, verify, cache, help] = await Promise.all([
      keelson(home, ["sessions"]),
      keelson(home, ["show", first]),
      keelson(home, ["requests", first]),
      keelson(home, ["requests", first, "--step", "1.1"]),
      keelson(home, ["verify", first]),
      keelson(home, ["cache", first]),
      keelson(home, ["--help"]),
    ]);
    for (const r of [sessions, show, requests, one, verify, cache, help])
      expect(r).toMatchObject({ code: 0, stderr: "" });

    const rows = sessions.stdout.trim().split("\n");
    expect(rows[0]).toMatch(/^id +created +turns +cwd +last prompt$/);
    const row = rows.find((r) => r.startsWith(first));
    expect(row).toMatch(new RegExp(`^${first} +\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z +1 +${home} +"hello there"$`));
    expect(rows.some((r) => r.startsWith(second))).toBe(true);

    expect(show.stdout).toContain(`session ${first}`);
    expect(show.stdout).toMatch(/── turn 1 \(send\)/);
    expect(show.stdout).toContain("user: hello there");
    expect(show.stdout).toContain("assistant: Understood: hello there");
    expect(show.stdout).toContain("header snapshot (initial)");
    expect(show.stdout).toContain("turn 1 ends completed");

    const list = JSON.parse(requests.stdout) as {
      turn: number;
      step: number;
      request: { model: string; messages: unknown[] };
    }[];
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ turn: 1, step: 1, request: { model: "emulator:emulator-anthropic" } });
    expect(JSON.parse(one.stdout)).toEqual(list[0]);

    expect(verify.stdout).toMatch(/^clean: 7 events, 1 turns, 1 requests/);
    expect(cache.stdout).toMatch(/^1\.1 /m);
    expect(cache.stdout).toMatch(/cache-hit share \d+\.\d% · cost \$\d+\.\d+/);
    expect(cache.stdout).toMatch(/[█░]{20}/);
    for (const command of [
      "chat",
      "run",
      "resume",
      "fork",
      "sessions",
      "show",
      "requests",
      "verify",
      "cache",
      "emulator",
    ])
      expect(help.stdout).toMatch(new RegExp(`\\n  ${command}\\b`));

    const fork = await keelson(home, ["fork", second]);
    expect(fork).toMatchObject({ code: 0, stderr: "" });
    const child = fork.stdout.trim();
    expect(child).toMatch(/^[0-9a-f-]{36}$/);
    expect(await readdir(join(home, "sessions"))).toContain(`${child}.jsonl`);
  }, 60_000);

  it("resume --last runs one more headless turn on the most recently used session (not the newest)", async () => {
    // `first` is the oldest session; resuming it makes it the most recently used one.
    const again = await keelson(home, ["resume", first, "once more"]);
    expect(again.code).toBe(0);
    expect(sessionIdOf(again)).toBe(first);
    const last = await keelson(home, ["resume", "--last", "--json", "and again"]);
    expect(last.code).toBe(0);
    expect(sessionIdOf(last)).toBe(first);
    const events = last.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { type: string; data: { turn?: number; reason?: unknown } });
    expect(events.at(-1)).toMatchObject({ type: "turn/end", data: { turn: 3, reason: { kind: "completed" } } });
    const show = await keelson(home, ["show", first]);
    expect(show.stdout).toContain("header snapshot (resume)");
    expect(show.stdout).toContain("turn 3 ends completed");
  }, 60_000);
});
