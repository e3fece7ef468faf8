// examples/server.ts, run in process on port 0 over the built package (`keelson` and
// `keelson/serve` from dist) with a scripted model: two sessions stream turns at once over HTTP
// (one held mid-turn while the other finishes), a busy session answers 409 with
// `?ifBusy=reject`, a client resumes with Last-Event-ID, a `useChat` request gets the UI message
// stream, a page's approval continues a paused turn in the same message (a resent one is 409),
// a session another host holds is 409 `locked` before any stream, and bad requests get their
// status (400, 404, 413, 416); run as a program, a long chat is compacted and SIGTERM closes it
// cleanly. Loopback only.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { type IncomingMessage, request, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import {
  type AgentHost,
  createAgentHost,
  defineTool,
  JsonlSessionStore,
  jsonSchema,
  ScriptedProvider,
  type TurnEvent,
} from "keelson";
import { readSSE } from "keelson/serve";
import { afterAll, beforeAll, expect, test } from "vitest";
import { serve } from "../../examples/server.js";
import { GatedModel } from "../host/support.js";

let root: string;
let store: JsonlSessionStore;
let host: AgentHost;
let server: Server;
let base: string;
const model = new GatedModel(["held"]);

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "keelson-server-"));
  store = new JsonlSessionStore({ root });
  // The model's window as a real provider's registry gives it: 100,000 tokens (a prompt over ~500 KB never fits).
  const provider = Object.assign(model.provider, { contextWindow: () => 100_000 });
  host = createAgentHost({ store, profile: { provider, model: "scripted:server" } });
  server = await serve(host, 0);
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await host.close({ mode: "cancel" });
  await store.close();
  await rm(root, { recursive: true, force: true });
});

const JSON_TYPE = { "content-type": "application/json" };
const post = (id: string, prompt: string, query = ""): Promise<Response> =>
  fetch(`${base}/sessions/${id}/turns${query}`, {
    method: "POST",
    headers: JSON_TYPE,
    body: JSON.stringify({ prompt }),
  });

async function events(response: Response | Promise<Response>): Promise<TurnEvent[]> {
  const out: TurnEvent[] = [];
  for await (const event of readSSE(await response)) out.push(event);
  return out;
}

const seqs = (list: readonly TurnEvent[]): number[] => list.flatMap((e) => ("seq" in e ? [e.seq] : []));

test("two sessions stream at once; a busy one answers 409; a client resumes with Last-Event-ID", async () => {
  const held = events(post("s1", "held"));
  await model.called("held");

  const free = await events(post("s2", "free")); // s2 finishes while s1 is mid-turn
  expect(free[0]?.type).toBe("turn-start");
  expect(free.at(-1)).toMatchObject({ type: "turn-end", turn: 1, outcome: { text: "re: free" } });

  const busy = await post("s1", "too soon", "?ifBusy=reject");
  expect([busy.status, await busy.json()]).toEqual([409, { error: "busy" }]);

  model.release("held");
  const first = await held;
  expect(first.at(-1)).toMatchObject({ type: "turn-end", turn: 1, outcome: { text: "re: held" } });

  const second = await events(post("s1", "again"));
  expect(second.at(-1)).toMatchObject({ type: "turn-end", turn: 2 });

  const last = String(seqs(first).at(-1));
  const resumed = await events(fetch(`${base}/sessions/s1/events`, { headers: { "last-event-id": last } }));
  expect(seqs(resumed)).toEqual(seqs(second));
});

test("a useChat request streams the turn as the AI SDK's UI message stream", async () => {
  const body = {
    id: "s3",
    trigger: "submit-message",
    messages: [{ id: "m1", role: "user", parts: [{ type: "text", text: "chat" }] }],
  };
  const response = await fetch(`${base}/sessions/s3/chat`, {
    method: "POST",
    headers: JSON_TYPE,
    body: JSON.stringify(body),
  });
  expect(response.headers.get("x-vercel-ai-ui-message-stream")).toBe("v1");
  const text = await response.text();
  expect(text).toContain('"delta":"re: chat"');
  expect(text).toContain('"type":"finish"');
});

test("bad requests: unknown session 404, a position beyond the log 416, a bad id or body 400, a prompt no window holds 413", async () => {
  expect((await fetch(`${base}/sessions/nobody/events`)).status).toBe(404);
  const beyond = await fetch(`${base}/sessions/s2/events?from=100000`);
  expect([beyond.status, await beyond.json()]).toEqual([416, { error: "position-beyond-log" }]);
  const malformed = await fetch(`${base}/sessions/s2/events?from=abc`);
  expect([malformed.status, await malformed.json()]).toEqual([400, { error: "invalid-position" }]);
  expect((await fetch(`${base}/sessions/..%2Fescape/events`)).status).toBe(400);
  expect((await post("..%2Fescape", "hi")).status).toBe(400);
  const noJson = await fetch(`${base}/sessions/s4/turns`, { method: "POST", headers: JSON_TYPE, body: "not json" });
  expect([noJson.status, await noJson.json()]).toEqual([400, { error: "invalid-request" }]);
  const nullBody = await fetch(`${base}/sessions/s4/turns`, { method: "POST", headers: JSON_TYPE, body: "null" });
  expect([nullBody.status, await nullBody.json()]).toEqual([400, { error: "invalid-request" }]);
  const badEscape = await fetch(`${base}/sessions/%E0%A4%A/events`);
  expect([badEscape.status, await badEscape.json()]).toEqual([400, { error: "invalid-request" }]);
  expect((await fetch(`${base}/sessions/s4/turns`, { method: "POST", headers: JSON_TYPE, body: "{}" })).status).toBe(
    400,
  );
  const array = await fetch(`${base}/sessions/s4/turns`, { method: "POST", headers: JSON_TYPE, body: "[1]" });
  expect([array.status, await array.json()]).toEqual([400, { error: "invalid-request" }]);
  // A cross-site page can POST text/plain or a form without a preflight: not JSON, not a turn.
  for (const type of ["text/plain", "application/x-www-form-urlencoded", undefined]) {
    const headers: Record<string, string> = {
      origin: "https://evil.example",
      ...(type ? { "content-type": type } : {}),
    };
    const forged = await fetch(`${base}/sessions/s5/turns`, { method: "POST", headers, body: '{"prompt":"hi"}' });
    expect([forged.status, await forged.json()], type).toEqual([415, { error: "unsupported-media-type" }]);
  }
  const huge = await fetch(`${base}/sessions/s5/turns`, {
    method: "POST",
    headers: JSON_TYPE,
    body: JSON.stringify({ prompt: "x".repeat(9 * 1024 * 1024) }),
  });
  expect([huge.status, await huge.json()]).toEqual([413, { error: "body-too-large" }]);
  expect(await host.log("s5").catch((e: { code: string }) => e.code)).toBe("not-found"); // nothing was created
  // Refused before the body was read (chunked, so no content-length to go by): the connection
  // closes — it said keep-alive, and the reused socket was reset (found from outside).
  const chunked = await new Promise<IncomingMessage>((resolve, reject) => {
    const req = request(`${base}/sessions/s5/turns`, { method: "POST", headers: JSON_TYPE }, resolve);
    req.on("error", () => {}); // the server may close before the whole body is written
    req.write(`{"prompt":"${"x".repeat(9 * 1024 * 1024)}"}`);
    req.end();
    setTimeout(() => reject(new Error("no answer")), 20_000).unref();
  });
  expect([chunked.statusCode, chunked.headers.connection]).toEqual([413, "close"]);
  chunked.resume();
  // A client that stalls mid-upload is cut off (Node's requestTimeout; its default, 5 min, held each body read so far).
  expect(server.requestTimeout).toBe(30_000);
  // A prompt within the body limit that the model's window could never hold: 413, nothing created.
  const overWindow = await post("s6", "x".repeat(600_000));
  expect([overWindow.status, await overWindow.json()]).toEqual([413, { error: "prompt-too-large" }]);
  expect(await host.log("s6").catch((e: { code: string }) => e.code)).toBe("not-found");
  const noMessages = await fetch(`${base}/sessions/s4/chat`, { method: "POST", headers: JSON_TYPE, body: "{}" });
  expect(noMessages.status).toBe(400);
  expect((await fetch(`${base}/elsewhere`)).status).toBe(404);
});

test("a session another host holds (two hosts on one JSONL directory) is 409 `locked`, before any stream", async () => {
  await events(post("held-elsewhere", "first")); // open in `host` (idle, kept open)
  const secondStore = new JsonlSessionStore({ root });
  const second = createAgentHost({
    store: secondStore,
    profile: { provider: model.provider, model: "scripted:server" },
  });
  const other = await serve(second, 0);
  const origin = `http://127.0.0.1:${(other.address() as { port: number }).port}`;
  try {
    const turns = await fetch(`${origin}/sessions/held-elsewhere/turns`, {
      method: "POST",
      headers: JSON_TYPE,
      body: JSON.stringify({ prompt: "second" }),
    });
    expect([turns.status, turns.headers.get("content-type"), await turns.json()]).toEqual([
      409,
      "application/json",
      { error: "locked" },
    ]);
    const chat = await fetch(`${origin}/sessions/held-elsewhere/chat`, {
      method: "POST",
      headers: JSON_TYPE,
      body: JSON.stringify({ messages: [{ id: "m1", role: "user", parts: [{ type: "text", text: "second" }] }] }),
    });
    expect([chat.status, await chat.json()]).toEqual([409, { error: "locked" }]);
    expect((await host.log("held-elsewhere")).filter((e) => e.type === "user/message")).toHaveLength(1);
  } finally {
    other.closeAllConnections();
    await new Promise((resolve) => other.close(resolve));
    await second.close();
    await secondStore.close();
  }
});

/** The UI message stream's chunks in a response body (`data: <json>` lines, then `[DONE]`). */
async function chunks(response: Response): Promise<{ type: string; [key: string]: unknown }[]> {
  const lines = (await response.text()).split("\n").filter((line) => line.startsWith("data: {"));
  return lines.map((line) => JSON.parse(line.slice(6)));
}

test("a page's approval continues the paused turn in the same message; a resent one is 409", async () => {
  const deploy = defineTool({
    name: "deploy",
    description: "Deploys.",
    input: jsonSchema<{ target: string }>({ type: "object", properties: { target: { type: "string" } } }),
    needsApproval: true,
    execute: ({ target }) => `deployed ${target}`,
  });
  const provider = new ScriptedProvider([{ toolCalls: [{ name: "deploy", arguments: { target: "prod" } }] }], {
    fallback: { text: "shipped" },
  });
  const approvals = createAgentHost({ store, profile: { provider, model: "scripted:server", tools: [deploy] } });
  const other = await serve(approvals, 0);
  const url = `http://127.0.0.1:${(other.address() as { port: number }).port}/sessions/a1/chat`;
  const user = { id: "m1", role: "user", parts: [{ type: "text", text: "ship it" }] };
  const first = await chunks(
    await fetch(url, { method: "POST", headers: JSON_TYPE, body: JSON.stringify({ messages: [user] }) }),
  );
  const request = first.find((c) => c.type === "tool-approval-request")!;
  expect(first.at(-1)).toEqual({ type: "finish", finishReason: "tool-calls" });
  const callId = String(request.toolCallId);
  const answered = {
    id: "turn-1",
    role: "assistant",
    parts: [
      { type: "step-start" },
      {
        type: "tool-deploy",
        toolCallId: callId,
        state: "approval-responded",
        input: {},
        approval: { id: callId, approved: true },
      },
    ],
  };
  const body = JSON.stringify({ trigger: "submit-message", messageId: "turn-1", messages: [user, answered] });
  const next = await chunks(await fetch(url, { method: "POST", headers: JSON_TYPE, body }));
  expect(next[0]).toEqual({ type: "start" }); // the page's message goes on
  expect(next).toContainEqual({ type: "tool-output-available", toolCallId: callId, output: "deployed prod" });
  expect(next).toContainEqual(expect.objectContaining({ type: "text-delta", delta: "shipped" }));
  const again = await fetch(url, { method: "POST", headers: JSON_TYPE, body });
  expect([again.status, await again.json()]).toEqual([409, { error: "nothing-to-answer" }]);
  other.closeAllConnections();
  await new Promise((resolve) => other.close(resolve));
  await approvals.close();
});

test("the example stays under 80 lines, as the README says", async () => {
  const source = await readFile(join(import.meta.dirname, "../../examples/server.ts"), "utf8");
  expect(source.trimEnd().split("\n").length).toBeLessThan(80);
});

test("run as a program: SIGTERM (a container being stopped) closes the host — every session flushed and released, exit 0", async () => {
  const sessions = join(root, "program");
  const child = spawn(process.execPath, ["--import", "tsx", "examples/server.ts"], {
    cwd: join(import.meta.dirname, "../.."),
    env: { PATH: process.env.PATH ?? "", HOME: root, KEELSON_HOME: root, PORT: "0", SERVER_SESSIONS: sessions },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  try {
    const [line] = (await once(createInterface({ input: child.stdout! }), "line")) as [string];
    const url = /listening on (http:\/\/\S+)/.exec(line)?.[1];
    expect(url).toBeDefined();
    const events: TurnEvent[] = [];
    for await (const event of readSSE(
      await fetch(`${url}/sessions/kept/turns`, { method: "POST", headers: JSON_TYPE, body: '{"prompt":"hi"}' }),
    ))
      events.push(event);
    expect(events.at(-1)).toMatchObject({ type: "turn-end", reason: { kind: "completed" } });
    expect(await readdir(sessions)).toContain("kept.lock"); // open in the host
    // A long chat: four prompts of ~50,000 tokens each pass 80 % of the model's 200,000-token
    // window; the profile's compaction summarizes the history and the turn goes on.
    for (let i = 0; i < 4; i++) {
      const prompt = `${i}: ${"lorem ipsum dolor sit amet ".repeat(7_500)}`;
      const response = await fetch(`${url}/sessions/long/turns`, {
        method: "POST",
        headers: JSON_TYPE,
        body: JSON.stringify({ prompt }),
      });
      const ends: TurnEvent[] = [];
      for await (const event of readSSE(response)) if (event.type === "turn-end") ends.push(event);
      expect(ends.at(-1), `turn ${i}`).toMatchObject({ reason: { kind: "completed" } });
    }
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect((await readdir(sessions)).sort()).toEqual(["kept.jsonl", "long.jsonl"]); // flushed and released
    const long = (await readFile(join(sessions, "long.jsonl"), "utf8")).trim().split("\n");
    const types = long.map((line) => (JSON.parse(line) as { type: string }).type);
    expect(types.filter((type) => type === "compact/end")).toHaveLength(1);
    expect(types.lastIndexOf("compact/end")).toBeLessThan(types.lastIndexOf("turn/end"));
  } finally {
    if (child.exitCode === null) child.kill("SIGKILL");
  }
}, 60_000);
