// A subagent's pause on the command line (#27 §1): `keelson approvals <parent>` lists the
// child's pending request with the subagent session it waits in (and the parent's stand-in);
// `keelson approve <parent> <callId>` finds the call among the parent's subagents (the parent's
// own stand-in has the same id and is left out), decides it in the child — which runs the call
// and finishes — and the parent continues; `--session` naming a session that does not hold it is
// exit 2 with nothing written.
import { readFile, rm } from "node:fs/promises";
import { join, resolve } from "node:path";
import { describe, expect, test } from "vitest";
import { z } from "zod";
import { ScriptedProvider } from "../../src/llm/index.js";
import { createAgent, subagentTool } from "../../src/loop/index.js";
import { JsonlSessionStore } from "../../src/store/index.js";
import { defineTool } from "../../src/tools/index.js";
import { keelson, tempHome } from "./run-keelson.js";

/** A parent (made by an app) paused on its `research` call: the child's `write` waits for approval. */
async function pausedParent(home: string): Promise<{ parentId: string; childId: string }> {
  const store = new JsonlSessionStore({ root: join(home, "sessions") });
  const write = defineTool({
    name: "write",
    description: "Writes a file.",
    input: z.object({ path: z.string(), content: z.string() }),
    needsApproval: true,
    execute: () => "not run by the app",
  });
  const child = new ScriptedProvider([
    { toolCalls: [{ name: "write", arguments: { path: "a.txt", content: "hello" } }] },
  ]);
  const agent = createAgent({
    provider: new ScriptedProvider([{ toolCalls: [{ name: "research", arguments: { task: "Write a.txt." } }] }]),
    model: "scripted:parent",
    cwd: home,
    tools: [write, subagentTool({ name: "research", description: "Researches.", agent: { provider: child } })],
    store,
  });
  expect((await agent.send("Delegate the file.")).reason).toEqual({ kind: "awaiting-approval" });
  const parentId = agent.session.id;
  await agent.dispose();
  await store.close();
  return { parentId, childId: `${parentId}.call_1_1_0` };
}

describe("keelson approvals / approve on a subagent's call", { timeout: 120_000 }, () => {
  test("approvals <parent> lists the child's call; approve <parent> <callId> runs it in the child, and the parent continues", async () => {
    const home = await tempHome();
    const { parentId, childId } = await pausedParent(home);

    const listed = await keelson(home, ["approvals", parentId, "--json"]);
    expect(listed.code, listed.stderr).toBe(0);
    const rows = listed.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(rows).toMatchObject([
      { kind: "approval", sessionId: parentId, callId: "call_1_1_0", tool: "research", subagent: childId },
      { kind: "approval", sessionId: childId, callId: "call_1_1_0", tool: "write", path: [parentId, childId] },
    ]);
    const text = await keelson(home, ["approvals", parentId]);
    expect(text.stdout).toContain(`${childId} (subagent of ${parentId})  call_1_1_0  write`);
    expect(text.stdout).toContain(`${parentId} (waits on subagent ${childId})  call_1_1_0  research`);

    // --session naming a session where the call does not wait: exit 2, nothing written.
    const parentLog = join(home, "sessions", `${parentId}.jsonl`);
    const before = await readFile(parentLog, "utf8");
    const wrong = await keelson(home, ["approve", parentId, "call_1_1_0", "--session", `${childId}.call_9_9_9`]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain(`call call_1_1_0 is not pending in session ${childId}.call_9_9_9`);
    expect(await readFile(parentLog, "utf8")).toBe(before);

    const approve = await keelson(home, [
      "approve",
      parentId,
      "call_1_1_0",
      "--by",
      "ana",
      "-m",
      "emulator:rule-based",
    ]);
    expect(approve.code, approve.stderr).toBe(0);
    expect(await readFile(join(home, "a.txt"), "utf8")).toBe("hello"); // the child's held call ran
    expect((await keelson(home, ["approvals", parentId])).stdout).toMatch(
      /^no pending approvals or questions in session /,
    );
    const store = new JsonlSessionStore({ root: join(home, "sessions") });
    const { session: child } = await store.load(childId, { readOnly: true });
    const { session: parent } = await store.load(parentId, { readOnly: true });
    await store.close();
    expect(child.events.find((e) => e.type === "approval/decision")?.data).toMatchObject({ approve: true, by: "ana" });
    const turnEnds = (events: typeof child.events) =>
      events.filter((e) => e.type === "turn/end").map((e) => (e.data as { reason: { kind: string } }).reason.kind);
    expect(turnEnds(child.events)).toEqual(["awaiting-approval", "completed"]);
    expect(turnEnds(parent.events)).toEqual(["awaiting-approval", "completed"]);
    expect((await keelson(home, ["verify", parentId])).code).toBe(0);
    await rm(home, { recursive: true, force: true });
  });

  test("approve --profiles MODULE --profile NAME continues with the app's profile: the held call runs the app's real child", async () => {
    const home = await tempHome();
    const { parentId, childId } = await pausedParent(home);
    const profiles = resolve(import.meta.dirname, "fixtures/subagent-profiles.mjs");
    const unknown = await keelson(home, ["approve", parentId, "call_1_1_0", "--profiles", profiles, "--profile", "x"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no profile "x"');
    const approve = await keelson(home, [
      "approve",
      parentId,
      "call_1_1_0",
      "--profiles",
      profiles,
      "--profile",
      "app",
    ]);
    expect(approve.code, approve.stderr).toBe(0);
    expect(approve.stdout).toContain("the app's parent finished");
    const store = new JsonlSessionStore({ root: join(home, "sessions") });
    const { session: child } = await store.load(childId, { readOnly: true });
    const { session: parent } = await store.load(parentId, { readOnly: true });
    await store.close();
    const results = (events: typeof child.events) =>
      events
        .filter((e) => e.type === "tool/result")
        .map((e) => (e.data as { content: { text: string }[] }).content[0]!.text);
    // The app's write ran (not the app's earlier in-process one), and the app's child model answered.
    expect(results(child.events)).toEqual(["the app wrote a.txt"]);
    expect(results(parent.events)).toEqual(["the app's child finished"]);
    const models = (events: typeof child.events) =>
      events
        .filter((e) => e.type === "request/header")
        .map((e) => (e.data as { header: { config: { model: string } } }).header.config.model);
    expect(models(child.events).at(-1)).toBe("scripted:app-child");
    expect(models(parent.events).at(-1)).toBe("scripted:app-parent");
    expect((await keelson(home, ["verify", parentId])).code).toBe(0);
    await rm(home, { recursive: true, force: true });
  });
});
