// Issue #20 F1, end to end: `printf 'a\0b' | keelson run --store postgres://… -` saves the turn.
// The session's title column used to get the raw prompt, and PostgreSQL TEXT cannot hold U+0000,
// so no event was stored and the run failed; the log (JSON) keeps the NUL, the title shows U+FFFD.
import { rm } from "node:fs/promises";
import { afterAll, beforeAll, expect, inject, test } from "vitest";
import { adminQuery, type FreshDatabase, freshDatabase } from "../support/postgres.js";
import { BIN, cleanEnv, keelson, type Result, sessionIdOf, spawn, tempHome } from "./run-keelson.js";

let home: string;
let db: FreshDatabase;

beforeAll(async () => {
  home = await tempHome();
  db = await freshDatabase(inject("pgAdminUrl"));
  expect((await keelson(home, ["db", "migrate", "--url", db.url])).code).toBe(0);
}, 120_000);

afterAll(async () => {
  await db.drop();
  await rm(home, { recursive: true, force: true });
});

/** Runs keelson with `input` written to its stdin, then stdin closed. */
function keelsonWithStdin(args: readonly string[], input: Buffer): Promise<Result> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: cleanEnv(home), cwd: home });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    child.on("error", fail);
    child.on("close", (code) => done({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(input);
  });
}

test("run - with a NUL in the prompt saves the turn on the PostgreSQL store", async () => {
  const run = await keelsonWithStdin(["run", "--store", db.url, "-"], Buffer.from("a\0b"));
  expect(run).toMatchObject({ code: 0 });
  expect(run.stderr).not.toContain("not-saved");
  const id = sessionIdOf(run);
  const verify = await keelson(home, ["verify", "--store", db.url, id]);
  expect(verify).toMatchObject({ code: 0 });
  const rows = await keelson(home, ["sessions", "--json", "--store", db.url]);
  const [listed] = rows.stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { id: string; firstPrompt?: string });
  expect(listed).toMatchObject({ id, firstPrompt: "a\ufffdb" });
  const lines = (await adminQuery(db.url, "SELECT line FROM keelson_events WHERE session_id = $1", [id])) as {
    line: string;
  }[];
  expect(lines.filter((r) => r.line.includes('"text":"a\\u0000b"'))).toHaveLength(1); // the log keeps the NUL
}, 120_000);
