// Child sessions (#27 §1): a tool result that names a child session (`meta.subagent.session`, the
// child's id `<parent>.<callId>`) makes the replay replay that child too, nested in the report —
// with the options `children` gives it, else (a real `subagentTool`) the options the parent's
// subagent tool gives it now; a child that now differs makes the parent's replay not identical.
// The first cases use a plain tool that runs a child agent the way the subagent tool does.
import { z } from "zod";
import { describe, expect, test } from "vitest";
import { type AgentOptions, createAgent, subagentTool } from "../../src/loop/index.js";
import { replayReportText, replaySession } from "../../src/replay/index.js";
import type { JsonlSessionStore } from "../../src/store/index.js";
import { defineTool } from "../../src/tools/index.js";
import { appOptions, readTool, scripted, useTempStore } from "./support.js";

let store: JsonlSessionStore;
useTempStore((temp) => {
  store = temp.store;
});

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

  test("without `children`, a child whose call's tool is no subagent tool is listed, not replayed", async () => {
    const { id, options } = await recordParent();
    const report = await replaySession(store, id, options);
    expect(report.identical).toBe(true);
    expect(report.children).toEqual([
      {
        callId: "call_1_1_0",
        session: `${id}.call_1_1_0`,
        skipped: "its call's tool is no subagent tool now, and no `children` option gives its options",
      },
    ]);
    const left = await replaySession(store, id, { ...options, children: () => undefined });
    expect(left.children[0]!.skipped).toBe("`children` gave no options for it");
  });
});

describe("subagents (subagentTool)", () => {
  /** A parent that delegates to a `research` subagent (the child's tools narrowed to the parent's `read`). */
  function subagentApp(childSystem: string) {
    const research = subagentTool({
      name: "research",
      description: "Researches a question and reports what it found.",
      agent: { system: childSystem },
      tools: ["read"],
    });
    // one model for parent and child (the child's provider defaults to the parent's), in call order
    const provider = scripted([
      { toolCalls: [{ name: "research", arguments: { task: "find the answer in notes.txt" } }] },
      { toolCalls: [{ name: "read", arguments: { path: "notes.txt" } }] }, // the child
      { text: "the answer is 42" }, // the child
      { text: "42" },
    ]);
    return appOptions(provider, { store, tools: [readTool, research] });
  }

  test("the child replays too, with the options the parent's subagent tool gives it now", async () => {
    const options = subagentApp("You research; answer in one line.");
    const agent = createAgent(options);
    expect((await agent.send("what is the answer?")).text).toBe("42");
    await agent.dispose();
    const id = agent.session.id;
    const report = await replaySession(store, id, options);
    expect(report.identical).toBe(true);
    expect(report.children).toMatchObject([
      { callId: "call_1_1_0", session: `${id}.call_1_1_0`, report: { identical: true, requests: { logged: 2 } } },
    ]);
    // the subagent's prompt changed: the parent's requests are unchanged, the child's differ
    const changed = await replaySession(store, id, subagentApp("You research; answer in one paragraph."));
    expect(changed.differences).toEqual([]);
    expect(changed.identical).toBe(false);
    expect(changed.children[0]!.report!.differences.map((d) => d.segment)).toEqual([
      { kind: "system", line: 1 },
      { kind: "system", line: 1 },
    ]);
  });
});
