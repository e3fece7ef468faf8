// The subagent seam (#27 §1 lands separately): a tool result that names a child session
// (`meta.subagent.session`, the child's id `<parent>.<callId>`, as the subagent tool logs it) makes
// the replay replay that child too, with the options `children` gives it, nested in the report; a
// child that now differs makes the parent's replay not identical; without `children`, the child is
// listed as skipped. Here a plain tool runs the child agent the way the subagent tool does.
import { z } from "zod";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { type AgentOptions, createAgent } from "../../src/loop/index.js";
import { replayReportText, replaySession } from "../../src/replay/index.js";
import type { JsonlSessionStore } from "../../src/store/index.js";
import { defineTool } from "../../src/tools/index.js";
import { type TempJsonlRoot, tempJsonlRoot } from "../store/jsonl-harness.js";
import { appOptions, scripted } from "./support.js";

let dir: TempJsonlRoot;
let store: JsonlSessionStore;
beforeEach(async () => {
  dir = await tempJsonlRoot();
  store = dir.open();
});
afterEach(() => dir.cleanup());

function childOptions(system = "You are the researcher."): AgentOptions {
  return appOptions(scripted([{ text: "the answer is 42" }]), { store, system });
}

/** A tool that runs a child agent in a session of its own and names it in its result's meta. */
const delegate = defineTool({
  name: "delegate",
  description: "Hands a task to a researcher.",
  input: z.object({ task: z.string() }),
  execute: async ({ task }, { sessionId, callId }) => {
    const child = createAgent({ ...childOptions(), sessionId: `${sessionId}.${callId}` });
    const outcome = await child.send(task);
    await child.dispose();
    return { content: [{ type: "text", text: outcome.text }], meta: { subagent: { session: child.session.id } } };
  },
});

async function recordParent(): Promise<{ id: string; options: AgentOptions }> {
  const options = appOptions(
    scripted([{ toolCalls: [{ name: "delegate", arguments: { task: "find the answer" } }] }, { text: "42" }]),
    { store, tools: [delegate] },
  );
  const agent = createAgent(options);
  await agent.send("what is the answer?");
  await agent.dispose();
  return { id: agent.session.id, options };
}

describe("child sessions", () => {
  test("the child a result names replays too, with the options `children` gives it", async () => {
    const { id, options } = await recordParent();
    const report = await replaySession(store, id, { ...options, children: () => childOptions() });
    expect(report.identical).toBe(true);
    expect(report.children).toHaveLength(1);
    expect(report.children[0]).toMatchObject({
      callId: "call_1_1_0",
      session: `${id}.call_1_1_0`,
      report: { identical: true, requests: { logged: 1, replayed: 1, identical: 1 } },
    });
  });

  test("a child that differs now makes the parent's replay not identical, and the report says where", async () => {
    const { id, options } = await recordParent();
    const report = await replaySession(store, id, {
      ...options,
      children: () => childOptions("You are the researcher. Cite sources."),
    });
    expect(report.differences).toEqual([]); // the parent's own requests are unchanged
    expect(report.identical).toBe(false);
    expect(report.children[0]!.report!.differences[0]!.segment).toEqual({ kind: "system", line: 1 });
    expect(replayReportText(report)).toContain(`replay of ${id}.call_1_1_0: 1 difference`);
  });

  test("without `children` the child is listed, not replayed", async () => {
    const { id, options } = await recordParent();
    const report = await replaySession(store, id, options);
    expect(report.identical).toBe(true);
    expect(report.children).toEqual([
      { callId: "call_1_1_0", session: `${id}.call_1_1_0`, skipped: "no `children` option gives its options" },
    ]);
  });
});
