// examples/server.ts, run in process on port 0 over the built package (`keelson` from dist) with a
// scripted model: two sessions stream turns at once over HTTP (one held mid-turn while the other
// finishes), a busy session answers 409 with `?ifBusy=reject`, a client resumes with
// Last-Event-ID, and bad requests get their status (400, 404, 416). Loopback only.
import { mkdtemp, rm } from "node:fs/promises";
import type { Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type AgentHost, createAgentHost, JsonlSessionStore } from "keelson";
import { afterAll, beforeAll, expect, test } from "vitest";
import { serve } from "../../examples/server.js";
import { GatedModel } from "../host/support.js";

interface SseEvent {
  readonly id?: string;
  readonly event: string;
  readonly data: { type: string; seq?: number; turn?: number; content?: { type: string; text?: string }[] };
}

const parse = (body: string): SseEvent[] =>
  body
    .split("\n\n")
    .filter((block) => block.trim() !== "")
    .map((block) => {
      const field = (name: string): string | undefined =>
        block
          .split("\n")
          .find((line) => line.startsWith(`${name}: `))
          ?.slice(name.length + 2);
      const id = field("id");
      return { ...(id === undefined ? {} : { id }), event: field("event")!, data: JSON.parse(field("data")!) };
    });

/** The text of the stream's committed answer. */
const answer = (events: readonly SseEvent[]): string | undefined =>
  events.find((e) => e.event === "assistant-message")?.data.content?.[0]?.text;

let root: string;
let store: JsonlSessionStore;
let host: AgentHost;
let server: Server;
let base: string;
const model = new GatedModel(["held"]);

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "keelson-server-"));
  store = new JsonlSessionStore({ root });
  host = createAgentHost({ store, profile: { provider: model.provider, model: "scripted:server" } });
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

const post = (id: string, prompt: string, query = ""): Promise<Response> =>
  fetch(`${base}/sessions/${id}/turns${query}`, { method: "POST", body: JSON.stringify({ prompt }) });

test("two sessions stream at once; a busy one answers 409; a client resumes with Last-Event-ID", async () => {
  const held = post("s1", "held");
  await model.called("held");
  const heldResponse = await held; // headers went out with the turn's first event
  expect(heldResponse.headers.get("content-type")).toBe("text/event-stream");
  const heldBody = heldResponse.text();

  const free = parse(await (await post("s2", "free")).text()); // s2 finishes while s1 is mid-turn
  expect(free[0]?.event).toBe("turn-start");
  expect(free.at(-1)?.data).toMatchObject({ type: "turn-end", turn: 1, outcome: { reason: { kind: "completed" } } });
  expect(answer(free)).toBe("re: free");
  expect(free.filter((e) => e.data.seq !== undefined).every((e) => e.id === String(e.data.seq))).toBe(true);

  const busy = await post("s1", "too soon", "?ifBusy=reject");
  expect(busy.status).toBe(409);
  expect(await busy.json()).toEqual({ error: "busy" });

  model.release("held");
  const events = parse(await heldBody);
  expect(events.at(-1)?.data).toMatchObject({ type: "turn-end", turn: 1 });
  expect(answer(events)).toBe("re: held");

  const second = parse(await (await post("s1", "again")).text());
  expect(second.at(-1)?.data).toMatchObject({ type: "turn-end", turn: 2 });

  const last = events.filter((e) => e.id !== undefined).at(-1)!.id!;
  const resumed = parse(
    await (await fetch(`${base}/sessions/s1/events`, { headers: { "last-event-id": last } })).text(),
  );
  expect(resumed.map((e) => e.id)).toEqual(second.filter((e) => e.id !== undefined).map((e) => e.id));
});

test("bad requests: unknown session 404, a position beyond the log 416, a bad id or body 400", async () => {
  expect((await fetch(`${base}/sessions/nobody/events`)).status).toBe(404);
  expect((await fetch(`${base}/sessions/s2/events?from=100000`)).status).toBe(416);
  expect((await fetch(`${base}/sessions/..%2Fescape/events`)).status).toBe(400);
  expect((await post("..%2Fescape", "hi")).status).toBe(400);
  const noJson = await fetch(`${base}/sessions/s3/turns`, { method: "POST", body: "not json" });
  expect([noJson.status, await noJson.json()]).toEqual([400, { error: "invalid-body" }]);
  expect((await fetch(`${base}/elsewhere`)).status).toBe(404);
});
