// Approvals from the command line (#23 §1): `run --await-approval` pauses a mutating call (exit 8)
// instead of denying it; `keelson approvals` lists it (JSONL and PostgreSQL); `approve` / `deny`
// continue the turn in a new process through agent.decide; bad input is exit 2 and writes
// nothing; `chat --resume` asks about a paused call and answers through the same path.
import { readFile, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, test } from "vitest";
import { type FreshDatabase, freshDatabase } from "../support/postgres.js";
import { ChatProcess } from "./chat-process.js";
import { keelson, sessionIdOf, tempHome } from "./run-keelson.js";

const MODEL = ["-m", "emulator:rule-based"];
const WRITE = "write `hello` to a.txt";

interface Listed {
  readonly sessionId: string;
  readonly callId: string;
  readonly tool: string;
  readonly arguments: string;
}

/** A paused session in `home` (cwd = home): returns its id and the pending call. */
async function paused(home: string, extra: readonly string[] = []) {
  const run = await keelson(home, ["run", ...MODEL, ...extra, "--await-approval", WRITE]);
  expect(run.code, run.stderr).toBe(8);
  const id = sessionIdOf(run);
  expect(run.stderr).toContain(`turn 1 awaiting-approval`);
  const callId = /awaiting approval: (\S+) write/.exec(run.stderr)![1]!;
  return { id, callId };
}

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

  test("a question (ask_user) pauses run --await-approval; respond answers it in a new process; a second answer is exit 2", async () => {
    const work = await tempHome();
    const run = await keelson(work, [
      "run",
      ...MODEL,
      "--await-approval",
      'call ask_user {"question":"Which region?"}',
    ]);
    expect(run.code, run.stderr).toBe(8);
    const id = sessionIdOf(run);
    const questionId = /awaiting an answer: (\S+) Which region\?/.exec(run.stderr)![1]!;
    const listed = await keelson(work, ["approvals", "--json"]);
    expect(JSON.parse(listed.stdout.trim())).toMatchObject({ kind: "question", sessionId: id, id: questionId });
    const respond = await keelson(work, ["respond", id, questionId, "eu-west-1", "--by", "ana"]);
    expect(respond.code, respond.stderr).toBe(0);
    expect(respond.stdout).toContain("eu-west-1");
    const again = await keelson(work, ["respond", id, questionId, "us"]);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/already-answered/);
    expect((await keelson(work, ["show", id])).stdout).toContain(`answered by ana [${questionId}]: "eu-west-1"`);
    await rm(work, { recursive: true, force: true });
  });

  test("chat answers ask_user's question live", async () => {
    const work = await tempHome();
    const chat = new ChatProcess(work, MODEL);
    chat.send('call ask_user {"question":"Favourite colour?"}');
    await chat.waitFor(/\? Favourite colour\?/);
    chat.send("teal");
    await chat.waitFor(/ask_user returned: "teal"/);
    chat.send("/exit");
    expect((await chat.exited).code, chat.stderr).toBe(0);
    await rm(work, { recursive: true, force: true });
  });

  test("chat --resume asks about the paused call and answers through agent.decide", async () => {
    const work = await tempHome();
    const { id } = await paused(work);
    const chat = new ChatProcess(work, [...MODEL, "--resume", id]);
    await chat.waitFor(/write waits for approval/);
    chat.send("y");
    await chat.waitFor(/Created a\.txt/);
    chat.send("/exit");
    expect((await chat.exited).code, chat.stderr).toBe(0);
    expect(await readFile(join(work, "a.txt"), "utf8")).toBe("hello");
    const show = await keelson(work, ["show", id]);
    expect(show.stdout).toMatch(/approved by user \[/);
    await rm(work, { recursive: true, force: true });
  });
});

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
