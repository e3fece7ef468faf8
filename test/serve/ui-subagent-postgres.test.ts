// A subagent's pause answered from the page with the PostgreSQL store (#27 §1): the agent host
// over `PostgresSessionStore` streams the child's approval as the child's part; the server
// restarts (a new host on a new store: every lease released, the child read from the database);
// the page reloads from the log (`uiMessagesFromLog` with `subagentLogs`) and shows the same
// part; @ai-sdk/react's `Chat` answers it there, `host.checkAnswers` checks it (a bad batch is
// refused whole, nothing logged), `host.streamAnswers` routes it to the child, and the child and
// then the parent finish in the same assistant message.
import type { UIMessage } from "ai";
import { describe, expect, test } from "vitest";
import { type AgentHost, createAgentHost } from "../../src/host/index.js";
import type { ScriptedStep } from "../../src/llm/core.js";
import { subagentTool } from "../../src/loop/index.js";
import { verifyLog } from "../../src/reconstruct/index.js";
import { subagentLogs, subagentPartId, uiMessagesFromLog } from "../../src/serve/index.js";
import { type SessionStore, storeReader } from "../../src/store/index.js";
import { usePgDatabase } from "../store/postgres-harness.js";
import { deployTool } from "../support/approval-tools.js";
import { scripted as model } from "../support/subagents.js";
import { chatHandler, chatOver } from "./support.js";

const database = usePgDatabase();

/** The app's profile: a parent that delegates to `research`, whose child deploys (approval needed). */
function profile(ran: string[], fresh: boolean) {
  // A restarted server's models go on from the log: the child's next answer, the parent's.
  const childSteps: ScriptedStep[] = fresh ? [{ toolCalls: [{ name: "deploy", arguments: { target: "eu" } }] }] : [];
  const parentSteps: ScriptedStep[] = fresh ? [{ toolCalls: [{ name: "research", arguments: { task: "ship" } }] }] : [];
  const research = subagentTool({
    name: "research",
    description: "Researches.",
    agent: { provider: model(childSteps, "deployed it") },
  });
  return { provider: model(parentSteps, "shipped"), model: "scripted:parent", tools: [deployTool(ran), research] };
}

/** A `Chat` over the host's `/api/chat` for session `id` (in process), starting from `messages`. */
function chatOn(host: () => AgentHost, id: string, messages: UIMessage[] = []) {
  const seen: number[] = [];
  const handler = chatHandler(
    {
      pending: () => host().pending(id),
      run: (chat) => (chat.kind === "prompt" ? host().stream(id, chat.content) : host().streamAnswers(id, chat)),
      check: (chat) => host().checkAnswers(id, chat),
    },
    seen,
  );
  return { ...chatOver(handler, true, messages), seen };
}

type ToolPart = { toolCallId: string; state: string; output?: unknown; callProviderMetadata?: unknown };
const toolParts = (message: UIMessage | undefined): ToolPart[] =>
  (message?.parts ?? []).filter((p) => p.type.startsWith("tool-")) as unknown as ToolPart[];

async function reloaded(store: SessionStore, id: string): Promise<UIMessage[]> {
  const { session } = await store.load(id, { readOnly: true });
  const subagents = await subagentLogs(session, storeReader(store));
  return JSON.parse(JSON.stringify(uiMessagesFromLog(session, { subagents }))) as UIMessage[];
}

describe("a subagent's pause on the page, PostgreSQL store", () => {
  test("streamed, reloaded after a server restart, answered from the reloaded page: child then parent finish", async () => {
    const db = database();
    const ran: string[] = [];
    let host = createAgentHost({ store: db.open(), profile: profile(ran, true) });
    const live = chatOn(() => host, "pg-1");
    await live.chat.sendMessage({ text: "ship it" });
    const partId = subagentPartId("pg-1.call_1_1_0", "call_1_1_0");
    const shown = toolParts(live.chat.lastMessage).map((p) => [p.toolCallId, p.state, p.callProviderMetadata]);
    expect(shown).toEqual([
      ["call_1_1_0", "input-available", undefined],
      [
        partId,
        "approval-requested",
        { keelson: { session: "pg-1.call_1_1_0", path: ["pg-1", "pg-1.call_1_1_0"], callId: "call_1_1_0" } },
      ],
    ]);
    await host.close();

    // The server restarts: another store (another lease owner), nothing open.
    const store = db.open();
    host = createAgentHost({ store, profile: profile(ran, false) });
    // The host checks a batch before anything is logged (the session opened for it): a bad one is refused whole.
    const lengths = async () =>
      Promise.all(
        ["pg-1", "pg-1.call_1_1_0"].map(async (id) => (await store.load(id, { readOnly: true })).session.length),
      );
    const before = await lengths();
    const decide = (callId: string) => ({ callId, approve: true, session: "pg-1.call_1_1_0" });
    await expect(
      host.checkAnswers("pg-1", { decisions: [decide("call_1_1_0"), decide("call_9_9_9")] }),
    ).rejects.toMatchObject({ code: "unknown-call" });
    await host.checkAnswers("pg-1", { decisions: [decide("call_1_1_0")] });
    expect(await lengths()).toEqual(before);
    expect(ran).toEqual([]);
    const messages = await reloaded(store, "pg-1");
    expect(toolParts(messages.at(-1)).map((p) => [p.toolCallId, p.state, p.callProviderMetadata])).toEqual(shown);
    const page = chatOn(() => host, "pg-1", messages);
    const done = page.finished();
    await page.chat.addToolApprovalResponse({ id: partId, approved: true });
    await done;
    expect(page.seen).toEqual([200]);
    expect(page.chat.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    const final = toolParts(page.chat.lastMessage).map((p) => [p.toolCallId, p.state, p.output]);
    expect(final).toEqual([
      ["call_1_1_0", "output-available", "deployed it"],
      [partId, "output-available", "deployed eu"],
    ]);
    expect(ran).toEqual(["eu"]);
    expect(await host.pending("pg-1")).toEqual({ approvals: [], inputs: [] });
    await host.close();
    const after = await reloaded(store, "pg-1");
    expect(toolParts(after.at(-1)).map((p) => [p.toolCallId, p.state, p.output])).toEqual(final);
    for (const id of ["pg-1", "pg-1.call_1_1_0"]) {
      const { session } = await store.load(id, { readOnly: true });
      expect(verifyLog(session.events).issues, id).toEqual([]);
    }
    await db.closeStores();
  });
});
