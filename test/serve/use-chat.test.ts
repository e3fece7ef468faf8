// The real useChat (issue #22 §2): a React page with @ai-sdk/react's hook, bundled at test time,
// talks to a node:http server hosting one agent (test/serve/use-chat-server.ts), in headless
// Chromium (Debian's, or the npm-shipped one: test/support/chromium.ts). The answer streams in,
// a tool call renders with its result, the stop button cancels the turn (the log says aborted),
// and a reload shows the stored history. Then (#23) a second agent whose tools wait for a person:
// the page approves, denies and answers a question, and each continuation streams into the same
// assistant message. Last, a page with useChat's `resume: true` reloaded while a continuation
// runs reconnects into the paused turn's one message and follows it to its end. Every wait is on
// the DOM, never on time.
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { askUserTool } from "../../src/builtin-tools/index.js";
import { type ProviderRequest, ScriptedProvider } from "../../src/llm/core.js";
import { type Agent, createAgent } from "../../src/loop/index.js";
import type { SessionEvent } from "../../src/session/index.js";
import { chromiumBinary } from "../support/chromium.js";
import { deferred } from "../support/deferred.js";
import { deployTool } from "../support/approval-tools.js";
import { chunkProvider, echo, finish, textChunks, usage, waitingTool } from "./support.js";
import { type ChatServer, startChatServer } from "./use-chat-server.js";

const FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"];

const firstAnswer = deferred();
const firstHeld = deferred();
const provider = chunkProvider([
  {
    chunks: [
      ...textChunks(0, "Let me ", "check that."),
      { type: "block-start", index: 1, block: { type: "tool-call", callId: "toolu_1", name: "echo" } },
      { type: "tool-call-delta", index: 1, argumentsDelta: '{"text":"ping"}' },
      { type: "block-end", index: 1 },
      usage,
      finish("tool-calls"),
    ],
    holdAt: 2, // after "Let me ": the page shows it while the model "thinks"
    gate: firstAnswer.promise,
    held: firstHeld.resolve,
  },
  { chunks: [...textChunks(0, "The tool said: ", "echo: ping"), usage, finish()] },
  // the second turn never finishes on its own: the stop button ends it
  { chunks: [...textChunks(0, "Thinking", " forever"), usage, finish()], holdAt: 2, gate: new Promise(() => {}) },
]);

let agent: Agent;
let server: ChatServer;
let browser: Browser;
let page: Page;

/** Waits until `selector`'s text includes `text` (the page is driven by what it shows). */
const showing = (selector: string, text: string) =>
  page.waitForFunction(
    ([s, t]) =>
      (
        globalThis as unknown as { document: { querySelector(q: string): { textContent: string | null } | null } }
      ).document
        .querySelector(s)
        ?.textContent?.includes(t) === true,
    [selector, text] as const,
  );
const status = (value: string) => showing("#status", value);
const text = async (selector: string) => (await page.textContent(selector)) ?? "";

/** Serves `next` to a new page of the browser, and closes both afterwards; `resume`: the page reconnects (and the server keeps a turn whose client left). */
async function openPage(next: Agent, resume = false): Promise<void> {
  agent = next;
  server = await startChatServer(agent, { cancelOnDisconnect: !resume });
  page = await browser.newPage();
  page.setDefaultTimeout(30_000);
  await page.goto(resume ? `${server.origin}/?resume` : server.origin);
  await status("ready");
}

async function closePage(): Promise<void> {
  await page?.close();
  await server?.close();
  await agent?.dispose();
}

beforeAll(async () => {
  const { executablePath } = await chromiumBinary();
  browser = await chromium.launch({ executablePath, args: FLAGS });
}, 180_000);

afterAll(async () => {
  await browser?.close();
});

describe("useChat of @ai-sdk/react against Keelson", () => {
  beforeAll(() => openPage(createAgent({ provider, model: "m", tools: [echo] })), 180_000);
  afterAll(closePage);

  it("streams the answer in, then renders the tool call with its result and the final text", async () => {
    await page.fill("#prompt", "hello");
    await page.click("#send");
    await firstHeld.promise; // the model is mid-answer
    await showing("[data-role=assistant] [data-part=text]", "Let me");
    expect(await text("#status")).toBe("streaming");
    expect(await text("[data-role=assistant]")).not.toContain("check that.");
    firstAnswer.resolve();
    await showing("[data-part=tool][data-state=output-available] output", "echo: ping");
    await showing("[data-role=assistant]", "The tool said: echo: ping");
    await status("ready");
    expect(await page.getAttribute("[data-role=assistant]", "data-id")).toBe("turn-1");
    expect(await text("[data-part=tool] code")).toBe('{"text":"ping"}');
  }, 60_000);

  it("the stop button cancels the turn: the log ends it aborted", async () => {
    await page.fill("#prompt", "wait forever");
    await page.click("#send");
    await showing("[data-id=turn-2] [data-part=text]", "Thinking");
    await page.click("#stop");
    await status("ready");
    await agent.whenIdle();
    const end = agent.session.events.findLast((e) => e.type === "turn/end") as SessionEvent<"turn/end">;
    expect(end.data).toEqual({ turn: 2, reason: { kind: "aborted", reason: "client disconnected" } });
  }, 60_000);

  it("a reload shows the stored history, rebuilt from the log", async () => {
    await page.reload();
    await status("ready");
    const roles = await page.$$eval("[data-role]", (els) => els.map((e) => e.getAttribute("data-role")));
    expect(roles).toEqual(["user", "assistant", "user", "assistant"]);
    expect(await text("[data-role=user]")).toBe("hello");
    expect(await text("[data-id=turn-1]")).toContain("Let me check that.");
    expect(await text("[data-part=tool][data-state=output-available] output")).toBe("echo: ping");
    expect(await text("[data-id=turn-1]")).toContain("The tool said: echo: ping");
    // the stopped step was never committed: the log (and so the reloaded page) has no text for it
    expect(await text("[data-id=turn-2]")).toBe("");
  }, 60_000);
});

const ran: string[] = [];
const deploy = deployTool(ran);

/** "deploy X" calls deploy(X), "ask me" calls ask_user; a tool's result is answered "Done: <result>". */
function reply(request: ProviderRequest) {
  const last = request.messages.at(-1)!;
  const text = last.content.map((part) => ("text" in part ? part.text : "")).join("");
  if (last.role === "tool") {
    const result = last.content[0]!;
    return {
      text: `Done: ${result.type === "tool-result" ? result.content.map((p) => ("text" in p ? p.text : "")).join("") : ""}`,
    };
  }
  if (text.startsWith("deploy ")) return { toolCalls: [{ name: "deploy", arguments: { target: text.slice(7) } }] };
  return { toolCalls: [{ name: "ask_user", arguments: { question: "Which region?" } }] };
}

const assistants = () => page.$$eval("[data-role=assistant]", (els) => els.map((e) => e.getAttribute("data-id")));

describe("answering approvals and questions from the page (#23)", () => {
  beforeAll(
    () =>
      openPage(
        createAgent({
          provider: new ScriptedProvider([], { fallback: reply }),
          model: "m",
          tools: [deploy, askUserTool()],
        }),
      ),
    180_000,
  );
  afterAll(closePage);

  it("shows the approval request; approve runs the tool and the answer streams into the same message", async () => {
    await page.fill("#prompt", "deploy staging");
    await page.click("#send");
    await page.waitForSelector(
      "[data-id=turn-1] [data-tool=deploy][data-state=approval-requested] [data-action=approve]",
    );
    await status("ready");
    expect(ran).toEqual([]);
    await page.click("[data-action=approve]");
    await showing("[data-id=turn-1] [data-tool=deploy][data-state=output-available] output", "deployed staging");
    await showing("[data-id=turn-1]", "Done: deployed staging");
    await status("ready");
    expect(ran).toEqual(["staging"]);
    expect(await assistants()).toEqual(["turn-1"]); // the continuation (turn 2) is no message of its own
    expect(await page.$$eval("[data-id=turn-1] [data-part=tool]", (els) => els.length)).toBe(1);
    const decision = agent.session.events.find((e) => e.type === "approval/decision");
    expect(decision?.data).toMatchObject({ approve: true, by: "page-user" });
  }, 60_000);

  it("deny: the part shows the denial and the model is told", async () => {
    await page.fill("#prompt", "deploy prod");
    await page.click("#send");
    await page.waitForSelector("[data-id=turn-3] [data-state=approval-requested] [data-action=deny]");
    await status("ready");
    await page.click("[data-action=deny]");
    await showing("[data-id=turn-3] [data-tool=deploy][data-state=output-denied] output", "not on the page's watch");
    await showing("[data-id=turn-3]", "Done: Tool call denied by page-user: not on the page's watch");
    await status("ready");
    expect(ran).toEqual(["staging"]);
    expect(await assistants()).toEqual(["turn-1", "turn-3"]);
  }, 60_000);

  it("an ask_user question answered on the page continues the turn with the answer", async () => {
    await page.fill("#prompt", "ask me");
    await page.click("#send");
    await page.waitForSelector("[data-id=turn-5] [data-tool=ask_user][data-state=input-available] [data-answer-for]");
    await status("ready");
    // The page shows what Keelson's mark on the part says it asks (callProviderMetadata.keelson.question).
    expect(await page.textContent("[data-id=turn-5] [data-question-message]")).toBe("Which region?");
    await page.fill("[data-id=turn-5] [data-answer-for]", "eu-west-1");
    await page.click("[data-id=turn-5] [data-action=answer]");
    await showing("[data-id=turn-5] [data-tool=ask_user][data-state=output-available] output", "eu-west-1");
    await showing("[data-id=turn-5]", "Done: eu-west-1");
    await status("ready");
    expect(await assistants()).toEqual(["turn-1", "turn-3", "turn-5"]);
    const response = agent.session.events.find((e) => e.type === "input/response");
    expect(response?.data).toMatchObject({ value: "eu-west-1", by: "page-user" });
    expect(await page.$$("#error")).toHaveLength(0);
  }, 60_000);

  it("a reload shows the same: each continuation in its paused turn's message", async () => {
    const before = await page.textContent("#messages");
    await page.reload();
    await status("ready");
    expect(await assistants()).toEqual(["turn-1", "turn-3", "turn-5"]);
    expect(await page.textContent("#messages")).toBe(before);
  }, 60_000);
});

describe("useChat's reconnect (resume: true) while a continuation runs", () => {
  const { tool: wait, gate, running } = waitingTool();
  /** "deploy X" → deploy(X) (approval); its result → the wait tool (held until `gate`); that result → "Done: …". */
  function replyThenWait(request: ProviderRequest) {
    const last = request.messages.at(-1)!;
    if (last.role === "tool") {
      const result = last.content[0]!;
      const said = result.type === "tool-result" ? result.content.map((p) => ("text" in p ? p.text : "")).join("") : "";
      return said === "waited" ? { text: "Done: waited" } : { text: "checking", toolCalls: [{ name: "wait" }] };
    }
    return reply(request);
  }
  beforeAll(
    () =>
      openPage(
        createAgent({
          provider: new ScriptedProvider([], { fallback: replyThenWait }),
          model: "m",
          tools: [deploy, wait],
        }),
        true,
      ),
    180_000,
  );
  afterAll(closePage);

  it("a reload mid-continuation resumes into the paused turn's message and follows it to its end", async () => {
    ran.length = 0;
    await page.fill("#prompt", "deploy staging");
    await page.click("#send");
    await page.waitForSelector("[data-id=turn-1] [data-state=approval-requested] [data-action=approve]");
    await status("ready");
    await page.click("[data-action=approve]");
    await running.promise; // the continuation (turn 2) waits in its tool
    await showing("[data-id=turn-1] [data-tool=wait]", "{}");
    await page.reload(); // the page's POST is cut: the turn goes on (no cancel on disconnect)
    await status("streaming"); // reconnected: the replay from turn 1's start, then live
    expect(await assistants()).toEqual(["turn-1"]);
    expect(await text("[data-id=turn-1] [data-tool=deploy] output")).toBe("deployed staging");
    gate.resolve();
    await showing("[data-id=turn-1]", "Done: waited");
    await status("ready");
    expect(await assistants()).toEqual(["turn-1"]); // the continuation is no message of its own
    expect(ran).toEqual(["staging"]);
    const live = await page.textContent("#messages");
    await page.reload(); // the log's view, and nothing left to resume (204)
    await status("ready");
    expect(await page.textContent("#messages")).toBe(live);
    expect(await page.$$("#error")).toHaveLength(0);
  }, 60_000);
});
