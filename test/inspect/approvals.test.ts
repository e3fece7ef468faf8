// The inspector and the store's listing show approvals (#23 §1): timeline rows for each request
// and decision, a pending count on the sessions list, and listPendingApprovals over a JSONL store
// (read-only: it works next to a writer holding the session).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { z } from "zod";
import { listedSession } from "../../src/inspect/session-summary.js";
import { timelineRows } from "../../src/inspect/index.js";
import { ScriptedProvider } from "../../src/llm/index.js";
import { createAgent } from "../../src/loop/index.js";
import { JsonlSessionStore, listPendingApprovals } from "../../src/store/index.js";
import { defineTool } from "../../src/tools/index.js";
import { fixedClock } from "../support/builders.js";

const deploy = defineTool({
  name: "deploy",
  description: "Deploys.",
  input: z.object({ target: z.string() }),
  needsApproval: ({ target }) => `deploys to ${target}`,
  execute: ({ target }) => `deployed ${target}`,
});

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "keelson-inspect-approvals-"));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function pausingAgent(store?: JsonlSessionStore) {
  const provider = new ScriptedProvider([{ toolCalls: [{ name: "deploy", arguments: { target: "prod" } }] }], {
    fallback: { text: "done" },
  });
  return createAgent({ provider, model: "m", tools: [deploy], clock: fixedClock(), ...(store ? { store } : {}) });
}

describe("the inspector", () => {
  test("the timeline has a row per approval request and decision; the sessions list counts pending ones", async () => {
    const agent = pausingAgent();
    await agent.send("ship");
    expect(listedSession(agent.session, 0)).toMatchObject({ pendingApprovals: 1 });
    const [pending] = agent.pendingApprovals();
    await agent.decide(pending!.callId, { approve: false, by: "ana", note: "freeze" });
    const rows = timelineRows(agent.session, new Map()).filter((r) => r.kind.startsWith("approval"));
    expect(rows.map((r) => [r.kind, r.text, r.error ?? false])).toEqual([
      [
        "approval-request",
        `approval requested for deploy({"target":"prod"}) [${pending!.callId}]: deploys to prod`,
        false,
      ],
      ["approval-decision", `denied by ana [${pending!.callId}]: freeze`, true],
    ]);
    expect(listedSession(agent.session, 0)).not.toHaveProperty("pendingApprovals");
    const end = timelineRows(agent.session, new Map()).find((r) => r.kind === "turn-end")!;
    expect(end).toMatchObject({ text: "turn 1 ends awaiting-approval" });
    expect(end).not.toHaveProperty("error");
  });
});

describe("listPendingApprovals", () => {
  test("lists every pending call with its session, next to a writer that holds it (a broken file is not a session)", async () => {
    const store = new JsonlSessionStore({ root });
    const agent = pausingAgent(store);
    await agent.send("ship");
    const other = pausingAgent(store);
    await other.send("again");
    writeFileSync(join(root, "broken.jsonl"), "not a log\n");
    const reader = new JsonlSessionStore({ root });
    const { approvals, unreadable } = await listPendingApprovals(reader);
    expect(approvals.map((a) => [a.sessionId, a.tool, a.reason])).toEqual(
      [agent, other].map((a) => [a.session.id, "deploy", "deploys to prod"]).sort((x, y) => (x[0]! < y[0]! ? -1 : 1)),
    );
    expect(unreadable).toEqual([]);
    await reader.close();
    await agent.dispose();
    await other.dispose();
    await store.close();
  });
});
