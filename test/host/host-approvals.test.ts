// The agent host and approvals (#23 §1): a turn that pauses ends awaiting-approval; a prompt
// while it waits is refused by the loop (awaiting-approval); host.decide queues the decision as a
// turn of the session's FIFO and resolves with the continued turn's outcome — also after the
// agent was evicted and the session is reopened from the store.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { z } from "zod";
import { askUserTool } from "../../src/builtin-tools/index.js";
import { createAgentHost } from "../../src/host/index.js";
import { ScriptedProvider } from "../../src/llm/core.js";
import { ApprovalError, type AgentProfile } from "../../src/loop/index.js";
import { JsonlSessionStore } from "../../src/store/index.js";
import { defineTool } from "../../src/tools/index.js";

let root: string;
let ran: string[];
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "keelson-host-approvals-"));
  ran = [];
});
afterEach(() => rm(root, { recursive: true, force: true }));

const deploy = defineTool({
  name: "deploy",
  description: "Deploys.",
  input: z.object({ target: z.string() }),
  needsApproval: true,
  execute: ({ target }) => {
    ran.push(target);
    return `deployed ${target}`;
  },
});

const profile: AgentProfile = {
  provider: () =>
    new ScriptedProvider([], {
      fallback: (request) =>
        request.messages.at(-1)?.role === "tool"
          ? { text: "shipped" }
          : { toolCalls: [{ name: "deploy", arguments: { target: "prod" } }] },
    }),
  model: "scripted:host",
  tools: [deploy],
};

describe("host.decide", () => {
  test("continues a paused session in its FIFO, across an eviction; a second decision is refused", async () => {
    const store = new JsonlSessionStore({ root });
    const host = createAgentHost({ store, profile, maxOpen: 1 });
    const paused = await host.send("s1", "ship it");
    expect(paused.reason).toEqual({ kind: "awaiting-approval" });
    await expect(host.send("s1", "anything?")).rejects.toMatchObject({ code: "awaiting-approval" });
    expect((await host.send("s2", "other session")).reason).toEqual({ kind: "awaiting-approval" }); // evicts s1
    const { session } = await store.load("s1", { readOnly: true });
    const [pending] = session.pendingApprovals();
    const outcome = await host.decide("s1", pending!.callId, { approve: true, by: "ana" });
    expect(outcome).toMatchObject({ reason: { kind: "completed" }, saved: true });
    expect(outcome.text).toBe("shipped");
    expect(ran).toEqual(["prod"]);
    const again = await host.decide("s1", pending!.callId, { approve: false }).catch((e: unknown) => e);
    expect(again).toBeInstanceOf(ApprovalError);
    expect((again as ApprovalError).code).toBe("already-decided");
    await host.close();
    await store.close();
  });

  test("host.respond answers a pending question", async () => {
    const store = new JsonlSessionStore({ root });
    const asking: AgentProfile = {
      provider: () =>
        new ScriptedProvider([], {
          fallback: (request) =>
            request.messages.at(-1)?.role === "tool"
              ? { text: "ok" }
              : { toolCalls: [{ name: "ask_user", arguments: { question: "Name?" } }] },
        }),
      model: "scripted:host",
      tools: [askUserTool()],
    };
    const host = createAgentHost({ store, profile: asking });
    expect((await host.send("q1", "hello")).reason).toEqual({ kind: "awaiting-input" });
    const { session } = await store.load("q1", { readOnly: true });
    const outcome = await host.respond("q1", session.pendingInputs()[0]!.id, { value: "Ada" });
    expect(outcome.reason).toEqual({ kind: "completed" });
    await host.close();
    await store.close();
  });
});
