// Questions and chat (#23): `run --await-approval` pauses on ask_user and `respond` answers it in
// a new process; `chat` answers ask_user live; `chat --resume` asks about a paused call and
// answers it through agent.decide. (approvals.test.ts: approve / deny from the command line.)
import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { ChatProcess } from "./chat-process.js";
import { MODEL, paused } from "./paused-run.js";
import { keelson, sessionIdOf, tempHome } from "./run-keelson.js";

// Each test runs several CLI processes one after another: minutes on a loaded box, not seconds.
describe("keelson respond / chat answers", { timeout: 120_000 }, () => {
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
