// The real useChat (issue #22 §2): a React page with @ai-sdk/react's hook, bundled at test time,
// talks to a node:http server hosting one agent (test/serve/use-chat-server.ts), in headless
// Chromium (Debian's, or the npm-shipped one: test/support/chromium.ts). The answer streams in,
// a tool call renders with its result, the stop button cancels the turn (the log says aborted),
// and a reload shows the stored history. Every wait is on the DOM, never on time.
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Agent, createAgent } from "../../src/loop/index.js";
import type { SessionEvent } from "../../src/session/index.js";
import { chromiumBinary } from "../support/chromium.js";
import { deferred } from "../support/deferred.js";
import { chunkProvider, echo, finish, textChunks, usage } from "./support.js";
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

beforeAll(async () => {
  const { executablePath } = await chromiumBinary();
  agent = createAgent({ provider, model: "m", tools: [echo] });
  server = await startChatServer(agent);
  browser = await chromium.launch({ executablePath, args: FLAGS });
  page = await browser.newPage();
  page.setDefaultTimeout(30_000);
  await page.goto(server.origin);
  await status("ready");
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await agent?.dispose();
});

describe("useChat of @ai-sdk/react against Keelson", () => {
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
