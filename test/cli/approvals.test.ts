// Approvals from the command line (#23 §1): `run --await-approval` pauses a mutating call (exit 8)
// instead of denying it; `keelson approvals` lists it (JSONL and PostgreSQL); `approve` / `deny`
// continue the turn in a new process through agent.decide; bad input is exit 2 and writes
// nothing (questions and chat: approvals-chat.test.ts; PostgreSQL: approvals-postgres.test.ts).
import { readFile, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { keelson, tempHome } from "./run-keelson.js";
import { type Listed, paused } from "./paused-run.js";

// Each test runs several CLI processes one after another: minutes on a loaded box, not seconds.
describe("keelson approvals / approve / deny (JSONL)", { timeout: 120_000 }, () => {
  let home: string;
  beforeAll(async () => {
    home = await tempHome();
  });
  afterAll(() => rm(home, { recursive: true, force: true }));

  test("a paused call is listed, approved in a new process, runs once; a second decision is exit 2", async () => {
    const { id, callId } = await paused(home);
    await expect(stat(join(home, "a.txt"))).rejects.toThrow(/ENOENT/);
    const listed = await keelson(home, ["approvals", "--json"]);
    expect(listed.code, listed.stderr).toBe(0);
    const rows = listed.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Listed);
    expect(rows).toEqual([expect.objectContaining({ sessionId: id, callId, tool: "write" })]);

    const approve = await keelson(home, ["approve", id, callId, "--by", "ana", "--note", "fine"]);
    expect(approve.code, approve.stderr).toBe(0);
    expect(approve.stderr).toContain("turn 2 completed");
    expect(await readFile(join(home, "a.txt"), "utf8")).toBe("hello");
    expect((await keelson(home, ["approvals"])).stdout).toMatch(/^no pending approvals or questions in /);

    const again = await keelson(home, ["deny", id, callId]);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/already-decided/);
    const show = await keelson(home, ["show", id]);
    expect(show.stdout).toContain(`approval requested for write(`);
    expect(show.stdout).toContain(`approved by ana [${callId}]: fine`);
    expect((await keelson(home, ["verify", id])).code).toBe(0);
  });

  test("deny: the call never runs and the model reads the note", async () => {
    const work = await tempHome();
    const { id, callId } = await paused(work);
    const deny = await keelson(work, ["deny", id, callId, "--by", "bo", "--note", "not today", "--json"]);
    expect(deny.code, deny.stderr).toBe(0);
    const events = deny.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { type: string; data: { content?: { text: string }[]; error?: string } });
    const result = events.find((e) => e.type === "tool/result")!;
    expect(result.data).toMatchObject({ error: "denied", content: [{ text: "Tool call denied by bo: not today" }] });
    await expect(stat(join(work, "a.txt"))).rejects.toThrow(/ENOENT/);
    await rm(work, { recursive: true, force: true });
  });

  test("bad input is exit 2 and changes nothing: unknown call, edited arguments for a tool that refuses them", async () => {
    const work = await tempHome();
    const { id, callId } = await paused(work);
    const file = join(work, "sessions", `${id}.jsonl`);
    const before = await readFile(file, "utf8");
    const unknown = await keelson(work, ["approve", id, "call_9_9_9"]);
    expect(unknown).toMatchObject({ code: 2 });
    expect(unknown.stderr).toMatch(/unknown-call: session .* has no tool call call_9_9_9/);
    const edited = await keelson(work, ["approve", id, callId, "--arguments", '{"path":"b.txt","content":"x"}']);
    expect(edited).toMatchObject({ code: 2 });
    expect(edited.stderr).toMatch(/edit-not-allowed/);
    expect(await readFile(file, "utf8")).toBe(before);
    await rm(work, { recursive: true, force: true });
  });
});
