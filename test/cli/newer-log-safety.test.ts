// Issue #12 D4 end to end: logs written by a newer Keelson (header `version: 3`; a version-1 log
// with an unknown event type; one with an unknown envelope key), each with an open final turn
// and a torn tail a writable load would repair and truncate. `show` prints them best-effort
// (exit 1), `verify` / `resume` / `requests` / `fork` / `cache` refuse them (exit 1) saying a
// newer Keelson wrote them, `sessions` lists them as such — and no command changes a byte, the
// mtime, or leaves a lock.
import { readdir, readFile, rm, stat, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SESSION_INDEX_DIR } from "../../src/store/index.js";
import { keelson, type Result, sessionIdOf, tempHome } from "./run-keelson.js";

let home: string;
let sessions: string;
let original: Record<string, unknown>[];

const PAST = new Date("2020-01-02T03:04:05Z");

interface Variant {
  readonly id: string;
  /** What every refusal says. */
  readonly says: string;
  readonly header: (h: Record<string, unknown>) => Record<string, unknown>;
  readonly extra: (seq: number) => Record<string, unknown>[];
}

const futureEvent = (seq: number): Record<string, unknown> => ({
  type: "future/event",
  seq,
  time: 1_700_000_000_000,
  data: { x: 1 },
});
const userWithPriority = (seq: number): Record<string, unknown> => ({
  type: "user/message",
  seq,
  time: 1_700_000_000_000,
  data: { content: [{ type: "text", text: "later" }], source: "user" },
  surfaceOp: "append",
  priority: 1,
});

// The stored run has 7 events (seqs 0–6, lines 2–8); turn 2 opens at seq 7 (line 9).
const VARIANTS: readonly Variant[] = [
  {
    id: "newer-v3",
    says: "written by a newer Keelson (log version 3)",
    header: (h) => ({ ...h, version: 3 }),
    extra: (seq) => [futureEvent(seq), userWithPriority(seq + 1)],
  },
  {
    id: "newer-type",
    says: 'written by a newer Keelson, or corrupt: unknown event type "future/event" at line 10',
    header: (h) => h,
    extra: (seq) => [futureEvent(seq)],
  },
  {
    id: "newer-key",
    says: 'written by a newer Keelson, or corrupt: unknown envelope key "priority" at line 10',
    header: (h) => h,
    extra: (seq) => [userWithPriority(seq)],
  },
];

const fileOf = (id: string): string => join(sessions, `${id}.jsonl`);

beforeAll(async () => {
  home = await tempHome();
  sessions = join(home, "sessions");
  const id = sessionIdOf(await keelson(home, ["run", "hello"]));
  original = (await readFile(fileOf(id), "utf8"))
    .trimEnd()
    .split("\n")
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  for (const v of VARIANTS) {
    const [header, ...events] = original;
    const seq = events.length;
    const lines = [
      v.header({ ...header, id: v.id }),
      ...events,
      { type: "turn/start", seq, time: 1_700_000_000_000, data: { turn: 2, trigger: "send" } },
      ...v.extra(seq + 1),
    ];
    await writeFile(fileOf(v.id), `${lines.map((l) => JSON.stringify(l)).join("\n")}\n{"type":"turn/e`);
    await utimes(fileOf(v.id), PAST, PAST);
  }
}, 60_000);

afterAll(() => rm(home, { recursive: true, force: true }));

/** The bytes and mtime of every variant, and the names in the sessions directory. */
async function snapshot(): Promise<unknown> {
  const files: Record<string, unknown> = {};
  for (const v of VARIANTS)
    files[v.id] = {
      bytes: (await readFile(fileOf(v.id))).toString("base64"),
      mtimeMs: (await stat(fileOf(v.id))).mtimeMs,
    };
  // The summary index `sessions` writes is a cache beside the logs, not a log: left out.
  return { files, names: (await readdir(sessions)).filter((n) => n !== SESSION_INDEX_DIR).sort() };
}

describe.each(VARIANTS)("a log written by a newer Keelson: $id", (v) => {
  it("show prints it best-effort (known events rendered, unknown ones by seq and type), says why on stderr, exit 1", async () => {
    const before = await snapshot();
    const [byId, byFile] = await Promise.all([keelson(home, ["show", v.id]), keelson(home, ["show", fileOf(v.id)])]);
    for (const show of [byId, byFile]) {
      expect(show.code).toBe(1);
      expect(show.stdout).toContain(`session ${v.id}`);
      expect(show.stdout).toContain("user: hello");
      expect(show.stdout).toContain("assistant: Understood: hello");
      expect(show.stdout).toContain("── turn 2 (send)");
      const stderr = show.stderr.trimEnd().split("\n");
      expect(stderr).toHaveLength(1);
      expect(stderr[0]).toMatch(/^keelson: .*newer-version: /);
      expect(stderr[0]).toContain(v.says);
      expect(stderr[0]).toContain("shown best-effort");
    }
    if (v.id !== "newer-key") expect(byId.stdout).toMatch(/\n# {2}8 future\/event \(unknown to this Keelson\)\n/);
    if (v.id !== "newer-type") {
      expect(byId.stdout).toContain("user: later");
      expect(byId.stdout).toContain('(unknown envelope key "priority": unknown to this Keelson)');
    }
    expect(await snapshot()).toEqual(before);
  }, 60_000);

  it("verify, resume, requests, fork and cache refuse it saying a newer Keelson wrote it (exit 1), changing nothing", async () => {
    const before = await snapshot();
    const runs: [string, Promise<Result>][] = [
      ["verify", keelson(home, ["verify", v.id])],
      ["resume", keelson(home, ["resume", v.id, "go on"])],
      ["requests", keelson(home, ["requests", v.id])],
      ["fork", keelson(home, ["fork", v.id])],
      ["cache", keelson(home, ["cache", v.id])],
    ];
    for (const [name, run] of runs) {
      const r = await run;
      expect({ name, code: r.code }).toEqual({ name, code: 1 });
      const said = name === "verify" ? r.stdout : r.stderr;
      expect(said, name).toContain(`newer-version: ${v.says}`);
      if (name === "verify") expect(r.stdout).toMatch(/not clean: written by a newer Keelson/);
      else expect(r.stdout, name).toBe("");
    }
    expect(await snapshot()).toEqual(before);
  }, 60_000);
});

it("sessions lists each newer log as written by a newer Keelson, still listing the others, changing nothing", async () => {
  const before = await snapshot();
  const [text, json] = await Promise.all([keelson(home, ["sessions"]), keelson(home, ["sessions", "--json"])]);
  expect(text.code).toBe(0);
  const rows = text.stdout.trimEnd().split("\n");
  expect(rows).toHaveLength(2 + VARIANTS.length);
  for (const v of VARIANTS) {
    const row = rows.find((r) => r.startsWith(`${v.id}.jsonl `));
    expect(row, v.id).toMatch(/^\S+ +written by a newer Keelson/);
    expect(row).toContain(v.says);
    expect(row).not.toContain("unreadable");
  }
  const objects = json.stdout
    .trimEnd()
    .split("\n")
    .map((l) => JSON.parse(l) as { file?: string; code?: string; problem?: string });
  for (const v of VARIANTS)
    expect(objects.find((o) => o.file === `${v.id}.jsonl`)).toEqual({
      file: `${v.id}.jsonl`,
      code: "newer-version",
      problem: expect.stringContaining(v.says),
    });
  expect(await snapshot()).toEqual(before);
}, 60_000);
