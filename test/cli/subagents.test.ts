// Subagents on the command line (#27 §1): `keelson show <parent>` prints each child session
// indented under the call that started it, `show <child>` names its parent, and `keelson verify`
// checks the children a parent's calls started — in the store (an id) or the log's directory (a
// FILE) — exist, link back, and ended: exit 1 naming the call's line when one is missing or open.
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ScriptedProvider } from "../../src/llm/index.js";
import { createAgent, subagentTool } from "../../src/loop/index.js";
import { JsonlSessionStore } from "../../src/store/index.js";
import { readTool } from "../loop/support.js";
import { keelson, tempHome } from "./run-keelson.js";

let home: string;
let parentId: string;
let childId: string;

beforeAll(async () => {
  home = await tempHome();
  const store = new JsonlSessionStore({ root: join(home, "sessions") });
  const child = new ScriptedProvider([
    { toolCalls: [{ name: "read", arguments: { path: "notes.txt" } }] },
    { text: "notes say 42" },
  ]);
  const agent = createAgent({
    provider: new ScriptedProvider([{ toolCalls: [{ name: "research", arguments: { task: "Read the notes." } }] }], {
      fallback: { text: "The notes say 42." },
    }),
    model: "scripted:parent",
    tools: [readTool, subagentTool({ name: "research", description: "Researches.", agent: { provider: child } })],
    store,
  });
  await agent.send("What do the notes say?");
  parentId = agent.session.id;
  childId = `${parentId}.call_1_1_0`;
  await agent.dispose();
  await store.close();
});

afterAll(() => rmSync(home, { recursive: true, force: true }));

describe("keelson show and verify with subagents", () => {
  test("show indents the child session under the call that started it", async () => {
    const shown = await keelson(home, ["show", parentId]);
    expect(shown.code).toBe(0);
    const lines = shown.stdout.split("\n");
    const open = lines.findIndex((l) => l.includes(`┌─ subagent session ${childId} (call call_1_1_0)`));
    const close = lines.findIndex((l) => l.includes(`└─ end of subagent session ${childId}`));
    expect(open).toBeGreaterThan(0);
    expect(close).toBeGreaterThan(open);
    const inside = lines.slice(open + 1, close);
    expect(inside.every((l) => l.startsWith("       │ "))).toBe(true);
    expect(inside.some((l) => l.includes("notes say 42"))).toBe(true);
    expect(inside.some((l) => l.includes("Read the notes."))).toBe(true);
    // The child's lines come after the parent's call, before the parent's final answer.
    expect(lines.findIndex((l) => l.includes("The notes say 42."))).toBeGreaterThan(close);
    const child = await keelson(home, ["show", childId]);
    expect(child.stdout).toContain(`subagent of ${parentId} (started by its call call_1_1_0)`);
  });

  test("verify checks the children: clean when each exists, links back and ended", async () => {
    const byId = await keelson(home, ["verify", parentId]);
    expect(byId.code).toBe(0);
    expect(byId.stdout).toMatch(/^clean: .* requests, 1 subagent session\(s\) ended/);
    const byFile = await keelson(home, ["verify", join(home, "sessions", `${parentId}.jsonl`)]);
    expect(byFile.code).toBe(0);
    expect(byFile.stdout).toContain("1 subagent session(s) ended");
  });

  test("verify fails on a child that lacks the turn the call's result collected, or ended it otherwise", async () => {
    // Found from outside: a child cut down to its meta line was reported "ended" (exit 0).
    const file = join(home, "sessions", `${childId}.jsonl`);
    const original = readFileSync(file, "utf8");
    try {
      writeFileSync(file, `${original.split("\n")[0]}\n`);
      const cut = await keelson(home, ["verify", parentId]);
      expect(cut.code).toBe(1);
      expect(cut.stdout).toContain(
        `subagent-turn-missing: subagent session ${childId} of call call_1_1_0 has no end of turn 1, which the call's result collected (0 ended turn(s) in its log)`,
      );
      const lines = original.split("\n");
      const end = lines.findIndex((l) => l.includes('"type":"turn/end"'));
      lines[end] = lines[end]!.replace('"kind":"completed"', '"kind":"interrupted"');
      writeFileSync(file, lines.join("\n"));
      const changed = await keelson(home, ["verify", parentId]);
      expect(changed.code).toBe(1);
      expect(changed.stdout).toContain(
        `subagent-turn-differs: subagent session ${childId} of call call_1_1_0 ended turn 1 "interrupted", but the call's result says "completed"`,
      );
    } finally {
      writeFileSync(file, original);
    }
    expect((await keelson(home, ["verify", parentId])).code).toBe(0);
  });

  test("verify fails on a child left open, and on a missing one, at the call's result line", async () => {
    const store = new JsonlSessionStore({ root: join(home, "sessions") });
    const { session } = await store.load(childId);
    const persistence = store.attach(session);
    session.append("turn/start", { turn: session.lastTurn + 1, trigger: "send" });
    await persistence.flush();
    persistence.dispose();
    await store.close(); // a writer that stops mid-turn: the child's turn stays open on disk
    const open = await keelson(home, ["verify", parentId]);
    expect(open.code).toBe(1);
    expect(open.stdout).toMatch(
      new RegExp(
        `\\.jsonl:\\d+: seq \\d+: subagent-open: subagent session ${childId.replaceAll(".", "\\.")} of call call_1_1_0 has an open turn`,
      ),
    );
    rmSync(join(home, "sessions", `${childId}.jsonl`));
    const missing = await keelson(home, ["verify", parentId]);
    expect(missing.code).toBe(1);
    expect(missing.stdout).toContain(
      `subagent-missing: subagent session ${childId} of call call_1_1_0 is not in the store`,
    );
  });
});
