// `keelson approvals` / `approve` on the PostgreSQL store (#23 §1): the paused call is listed and
// approved across processes. (approvals.test.ts: the same on the JSONL store.)
import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, test } from "vitest";
import { type FreshDatabase, freshDatabase } from "../support/postgres.js";
import { type Listed, paused } from "./paused-run.js";
import { keelson, tempHome } from "./run-keelson.js";

describe("keelson approvals on the PostgreSQL store", { timeout: 120_000 }, () => {
  let home: string;
  let db: FreshDatabase;
  beforeAll(async () => {
    home = await tempHome();
    db = await freshDatabase(inject("pgAdminUrl"));
    expect((await keelson(home, ["db", "migrate", "--url", db.url])).code).toBe(0);
  }, 60_000);
  afterAll(async () => {
    await db.drop();
    await rm(home, { recursive: true, force: true });
  });

  test("lists the pending call and approves it across processes", async () => {
    const { id, callId } = await paused(home, ["--store", db.url]);
    const listed = await keelson(home, ["approvals", "--store", db.url, "--json"]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout.trim()) as Listed).toMatchObject({ sessionId: id, callId, tool: "write" });
    const approve = await keelson(home, ["approve", id, callId], { KEELSON_STORE: db.url });
    expect(approve.code, approve.stderr).toBe(0);
    expect(await readFile(join(home, "a.txt"), "utf8")).toBe("hello");
    expect((await keelson(home, ["approvals", "--store", db.url])).stdout).toMatch(/^no pending approvals/);
  });
});
