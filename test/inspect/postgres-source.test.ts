// The inspector over the PostgreSQL store (`keelson inspect --store postgres://…`): the sessions
// list and a session's view come from the database, read-only, and the live stream delivers a
// turn that `keelson resume --store …` appends while it is open (the store's LISTEN/NOTIFY watch).
import { rm } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import {
  type InspectServer,
  type LiveAppend,
  type SessionPayload,
  type SessionsPayload,
  StoreInspectSource,
  startInspectServer,
} from "../../src/inspect/index.js";
import { PostgresSessionStore } from "../../src/store/postgres/index.js";
import { keelson, sessionIdOf, tempHome } from "../cli/run-keelson.js";
import { adminQuery, type FreshDatabase, freshDatabase } from "../support/postgres.js";

let home: string;
let db: FreshDatabase;
let id: string;
let store: PostgresSessionStore;
let server: InspectServer;

const get = (path: string): Promise<Response> =>
  fetch(`${server.origin}${path}`, { headers: { authorization: `Bearer ${server.token}` } });

beforeAll(async () => {
  home = await tempHome();
  db = await freshDatabase(inject("pgAdminUrl"));
  expect((await keelson(home, ["db", "migrate", "--url", db.url])).code).toBe(0);
  const run = await keelson(home, ["run", "--store", db.url, "hello there"]);
  expect(run.code).toBe(0);
  id = sessionIdOf(run);
  store = new PostgresSessionStore({ url: db.url });
  server = await startInspectServer({ source: new StoreInspectSource(store) });
}, 60_000);

afterAll(async () => {
  await server?.close();
  await store?.close();
  await db?.drop();
  await rm(home, { recursive: true, force: true });
});

describe("keelson inspect on the PostgreSQL store", () => {
  it("lists the database's sessions and shows one, writing nothing", async () => {
    const before = await adminQuery(db.url, "SELECT id, next_seq, lease_owner FROM keelson_sessions ORDER BY id");
    const sessions = (await (await get("/api/sessions")).json()) as SessionsPayload;
    expect(JSON.stringify(sessions)).toContain(id);
    const res = await get(`/api/sessions/${id}`);
    expect(res.status).toBe(200);
    const session = (await res.json()) as SessionPayload;
    expect(session.events).toBeGreaterThan(0);
    expect(JSON.stringify(session)).toContain("hello there");
    expect(await adminQuery(db.url, "SELECT id, next_seq, lease_owner FROM keelson_sessions ORDER BY id")).toEqual(
      before,
    );
  });

  it("streams the turn `keelson resume --store …` appends while the stream is open", async () => {
    const session = (await (await get(`/api/sessions/${id}`)).json()) as SessionPayload;
    const res = await get(`/api/sessions/${id}/live?from=${session.events}`);
    expect(res.headers.get("content-type")).toMatch(/text\/event-stream/);
    const reader = res.body!.getReader();
    const resumed = keelson(home, ["resume", "--store", db.url, id, "a live turn"]);
    const appended: LiveAppend[] = [];
    let buffer = "";
    const decoder = new TextDecoder();
    while (!appended.some((a) => a.appended.some((e) => e.type === "turn/end"))) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      for (let cut = buffer.indexOf("\n\n"); cut >= 0; cut = buffer.indexOf("\n\n")) {
        const data = /^event: append\ndata: (.*)$/m.exec(buffer.slice(0, cut));
        buffer = buffer.slice(cut + 2);
        if (data !== null) appended.push(JSON.parse(data[1]!) as LiveAppend);
      }
    }
    await reader.cancel();
    expect((await resumed).code).toBe(0);
    const events = appended.flatMap((a) => a.appended);
    expect(events[0]!.seq).toBe(session.events);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => session.events + i));
    expect(appended.flatMap((a) => a.rows).some((r) => r.kind === "user" && r.text === "user: a live turn")).toBe(true);
  }, 60_000);
});
