// Subagents in the inspector (#27 §1): the sessions list shows the tree of sessions (a parent ⇢
// the sessions its calls started, a child "subagent of" its parent), a subagent call's result row
// links to the child's timeline, the child's page links back to the call's row (which it selects
// and scrolls to), and the parent's verify includes keelson verify's subagent checks. The API is
// checked in-process; the page with `keelson inspect` (the built CLI) in headless Chromium.
import { readFile, rm, unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type InspectServer,
  JsonlInspectSource,
  type SessionPayload,
  type SessionsPayload,
  startInspectServer,
  type VerifyPayload,
} from "../../src/inspect/index.js";
import { ScriptedProvider } from "../../src/llm/index.js";
import { createAgent, subagentTool } from "../../src/loop/index.js";
import { JsonlSessionStore } from "../../src/store/index.js";
import { tempHome } from "../cli/run-keelson.js";
import { chromiumBinary } from "../support/chromium.js";
import { type InspectProcess, startInspect } from "./fixture.js";

// The page's location, in the callbacks run in the browser (this file is typechecked without the DOM lib).
declare const location: { readonly hash: string };

let home: string;
let parentId: string;
let childId: string;
let server: InspectServer;
let source: JsonlInspectSource;

beforeAll(async () => {
  home = await tempHome();
  const store = new JsonlSessionStore({ root: join(home, "sessions") });
  const child = new ScriptedProvider([{ text: "the answer is 42" }]);
  const agent = createAgent({
    provider: new ScriptedProvider([{ toolCalls: [{ name: "research", arguments: { task: "Find the answer." } }] }], {
      fallback: { text: "It is 42." },
    }),
    model: "scripted:parent",
    tools: [subagentTool({ name: "research", description: "Researches.", agent: { provider: child } })],
    store,
  });
  await agent.send("What is the answer?");
  parentId = agent.session.id;
  childId = `${parentId}.call_1_1_0`;
  await agent.dispose();
  await store.close();
  source = new JsonlInspectSource({ root: join(home, "sessions"), pollMs: 100 });
  server = await startInspectServer({ source, assetsDir: home });
});

afterAll(async () => {
  await server?.close();
  await source?.close();
  if (home !== undefined) await rm(home, { recursive: true, force: true });
});

const getJson = async <T>(path: string): Promise<T> => {
  const res = await fetch(`${server.origin}${path}`, { headers: { authorization: `Bearer ${server.token}` } });
  expect(res.status, path).toBe(200);
  return (await res.json()) as T;
};

describe("the inspector's API", () => {
  it("lists the tree of sessions: the parent's subagents, the child's parent", async () => {
    const { sessions } = await getJson<SessionsPayload>("/api/sessions");
    const parent = sessions.find((s) => s.kind === "session" && s.id === parentId);
    const child = sessions.find((s) => s.kind === "session" && s.id === childId);
    expect(parent).toMatchObject({ subagents: [childId] });
    expect(child).toMatchObject({ spawnedBy: { session: parentId, callId: "call_1_1_0" } });
  });

  it("links the call's result row to the child, and the child back to that row", async () => {
    const parent = await getJson<SessionPayload>(`/api/sessions/${parentId}`);
    const row = parent.rows.find((r) => r.child !== undefined);
    expect(row).toMatchObject({ kind: "tool-result", child: childId });
    const child = await getJson<SessionPayload>(`/api/sessions/${encodeURIComponent(childId)}`);
    expect(child.spawnedBy).toEqual({ session: parentId, callId: "call_1_1_0", seq: row!.seq });
  });

  it("verify of the parent checks its children: clean, then a problem at the call when the child is gone", async () => {
    expect(await getJson<VerifyPayload>(`/api/sessions/${parentId}/verify`)).toMatchObject({ clean: true });
    const file = join(home, "sessions", `${childId}.jsonl`);
    const bytes = await readFile(file);
    await unlink(file);
    try {
      const verify = await getJson<VerifyPayload>(`/api/sessions/${parentId}/verify`);
      expect(verify.clean).toBe(false);
      expect(verify.problems).toMatchObject([{ code: "subagent-missing", line: expect.any(Number) }]);
    } finally {
      await writeFile(file, bytes);
    }
  });
});

describe("the inspector's page in Chromium", () => {
  let inspect: InspectProcess;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    const { executablePath } = await chromiumBinary();
    inspect = await startInspect(home, []);
    browser = await chromium.launch({ executablePath, args: ["--headless", "--no-sandbox", "--disable-gpu"] });
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    page.setDefaultTimeout(30_000);
    await page.goto(inspect.url);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    if (inspect !== undefined) expect(await inspect.stop()).toBe(0);
  });

  it("shows the tree, jumps from the call to its child and back to the call", async () => {
    await page.waitForSelector(`[data-session="${parentId}"]`);
    expect(await page.textContent(`[data-session="${parentId}"] [data-testid="subagent"]`)).toContain("call_1_1_0");
    expect(await page.textContent(`[data-session="${childId}"] [data-testid="subagent-of"]`)).toContain(
      parentId.slice(0, 8),
    );
    await page.goto(`${inspect.origin}/#/session/${parentId}/timeline`);
    await page.click('[data-testid="subagent-link"]');
    await page.waitForFunction((id) => location.hash.includes(encodeURIComponent(id)), childId);
    await page.waitForSelector('[data-testid="spawned-by"]');
    expect(await page.textContent('[data-testid="session-id"]')).toBe(childId);
    expect(await page.textContent('[data-testid="timeline"]')).toContain("Find the answer.");
    await page.click('[data-testid="spawned-by"]');
    // Back in the parent, the call's result row is selected and its event shown — each waited
    // for: the page renders the session, the selection and the event's detail one after the other.
    await page.waitForSelector(`[data-testid="session-id"]:text-is("${parentId}")`);
    await page.waitForSelector('.row.sel[data-kind="tool-result"]');
    await page.waitForSelector(`[data-testid="event-detail"]:has-text("${childId}")`);
    expect(await page.textContent('[data-testid="event-detail"]')).toContain(childId);
  });
});
