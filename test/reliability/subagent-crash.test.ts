// A crash mid-child is repaired on both sides (#27 §1): a writer running a parent whose
// subagents are at work is SIGKILLed — inside a child's tool with side effects, inside a child's
// model call, with two children running at once. Then, in this process: both logs have an open
// turn; resuming the parent repairs its open turn (the subagent calls get interrupted results)
// and, knowing from the calls it closed which children were running, each child's too (its
// in-flight tool call, on disk before the tool ran, gets an interrupted result); every log
// verifies, no turn is left open, and the resumed parent completes one more turn.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, expect, test } from "vitest";
import { compiledScript } from "../../reliability/fixtures/compiled-script.js";
import { WriterChild } from "../../reliability/fixtures/writer-child.js";
import { ScriptedProvider } from "../../src/llm/index.js";
import { resumeAgent, subagentTool } from "../../src/loop/index.js";
import { verifyLog } from "../../src/reconstruct/index.js";
import { type SessionEvent, subagentLinks } from "../../src/session/index.js";
import { JsonlSessionStore } from "../../src/store/index.js";

const script = fileURLToPath(new URL("./subagent-crash-child.ts", import.meta.url));
let root: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "keelson-subagent-crash-"));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const lastEnd = (events: readonly SessionEvent[]) =>
  (events.findLast((e) => e.type === "turn/end") as SessionEvent<"turn/end"> | undefined)?.data.reason.kind;

for (const point of ["child-tool", "child-model", "two-children"] as const)
  test(`kill -9 ${point}: resuming the parent repairs it and its running children`, { timeout: 60_000 }, async () => {
    const writer = new WriterChild(await compiledScript(script), [root, point]);
    let parentId: string;
    try {
      parentId = (await writer.waitFor((l) => l.startsWith("parent "), "the parent's id")).slice("parent ".length);
      await writer.waitFor((l) => l === "blocked", "every child at its kill point");
    } finally {
      const exit = await writer.kill();
      expect(exit.signal).toBe("SIGKILL");
    }
    const children = point === "two-children" ? 2 : 1;
    const childIds = Array.from({ length: children }, (_, i) => `${parentId}.call_1_1_${i}`);
    const store = new JsonlSessionStore({ root });
    try {
      // Both sides were left open by the kill.
      expect((await store.load(parentId, { readOnly: true })).needsRepair).toBe(true);
      for (const id of childIds) {
        const { session, needsRepair } = await store.load(id, { readOnly: true });
        expect(needsRepair).toBe(true);
        expect(session.header.spawnedBy).toEqual({ session: parentId, callId: id.slice(parentId.length + 1) });
        const tool = point === "child-model" ? "note" : "stall";
        expect(session.events.some((e) => e.type === "tool/call" && (e.data as { name: string }).name === tool)).toBe(
          true,
        );
      }
      const resumed = await resumeAgent(store, parentId, {
        provider: new ScriptedProvider([], { fallback: { text: "carrying on" } }),
        model: "scripted:parent",
        tools: [subagentTool({ name: "research", description: "Researches." })],
      });
      const parentLog = resumed.session.events;
      expect(lastEnd(parentLog)).toBe("interrupted");
      expect(verifyLog(parentLog).issues).toEqual([]);
      // The parent's closers name the calls whose children may exist; each does, and was repaired.
      const links = subagentLinks(parentLog, parentId, { closed: true });
      expect(links.map((l) => l.session)).toEqual(childIds);
      for (const id of childIds) {
        const { session, needsRepair } = await store.load(id, { readOnly: true });
        expect(needsRepair).toBe(false);
        expect(lastEnd(session.events)).toBe("interrupted");
        expect(verifyLog(session.events).issues).toEqual([]);
        if (point !== "child-model") {
          const result = session.events.findLast((e) => e.type === "tool/result") as SessionEvent<"tool/result">;
          expect(result.data).toMatchObject({ isError: true, error: "interrupted" });
        }
      }
      const again = await resumed.send("Go on.");
      expect(again.reason).toEqual({ kind: "completed" });
      expect(verifyLog(resumed.session.events).issues).toEqual([]);
      await resumed.dispose();
    } finally {
      await store.close();
    }
  });
