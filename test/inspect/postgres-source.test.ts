// The inspector over the PostgreSQL store (`keelson inspect --store postgres://…`): the sessions
// list and a session's view come from the database, read-only, and the live stream delivers a
// turn that `keelson resume --store …` appends while it is open (the store's LISTEN/NOTIFY watch)
// — and still does behind a pooler that drops notifications (PgBouncer in transaction mode,
// played by a proxy that forwards everything but NotificationResponse): the watch notices that
// the log grew with no notification, falls back to polling and says so (issue #20 F7).
import { rm } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import {
  type InspectServer,
  type LiveAppend,
  type LiveNotice,
  type SessionPayload,
  type SessionsPayload,
  StoreInspectSource,
  startInspectServer,
} from "../../src/inspect/index.js";
import { PostgresSessionStore } from "../../src/store/postgres/index.js";
import { keelson, sessionIdOf, tempHome } from "../cli/run-keelson.js";
import { adminQuery, type FreshDatabase, freshDatabase } from "../support/postgres.js";
import { notificationDroppingProxy } from "./notification-dropping-proxy.js";

let home: string;
let db: FreshDatabase;
let id: string;
let store: PostgresSessionStore;
let server: InspectServer;

const get = (path: string, from: InspectServer = server): Promise<Response> =>
  fetch(`${from.origin}${path}`, { headers: { authorization: `Bearer ${from.token}` } });

/** Reads a live stream until a `turn/end` is appended: the appends and the notices, in order. */
/**
 * Reads the live stream until the turn's end has been appended — and, with `untilNotice`, until a
 * notice of that mode came too: behind a pooler the store's catch-up poll may deliver the whole
 * turn before the gap is reported (one poll later), so the notice can follow the turn's end.
 */
async function readLive(
  res: Response,
  untilNotice?: LiveNotice["mode"],
): Promise<{ appended: LiveAppend[]; notices: LiveNotice[] }> {
  const reader = res.body!.getReader();
  const appended: LiveAppend[] = [];
  const notices: LiveNotice[] = [];
  let buffer = "";
  const decoder = new TextDecoder();
  const done = (): boolean =>
    appended.some((a) => a.appended.some((e) => e.type === "turn/end")) &&
    (untilNotice === undefined || notices.some((n) => n.mode === untilNotice));
  while (!done()) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    for (let cut = buffer.indexOf("\n\n"); cut >= 0; cut = buffer.indexOf("\n\n")) {
      const message = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const data = /^data: (.*)$/m.exec(message)?.[1];
      if (data === undefined) continue;
      if (message.startsWith("event: append")) appended.push(JSON.parse(data) as LiveAppend);
      if (message.startsWith("event: notice")) notices.push(JSON.parse(data) as LiveNotice);
    }
  }
  await reader.cancel();
  return { appended, notices };
}

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
    const resumed = keelson(home, ["resume", "--store", db.url, id, "a live turn"]);
    const { appended, notices } = await readLive(res);
    expect((await resumed).code).toBe(0);
    const events = appended.flatMap((a) => a.appended);
    expect(events[0]!.seq).toBe(session.events);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => session.events + i));
    expect(appended.flatMap((a) => a.rows).some((r) => r.kind === "user" && r.text === "user: a live turn")).toBe(true);
    expect(notices[0]).toMatchObject({ mode: "notify" });
  }, 60_000);

  it("behind a pooler that drops notifications, falls back to polling, says so, and streams the turn", async () => {
    const proxy = await notificationDroppingProxy(db.url);
    const pooled = new PostgresSessionStore({ url: proxy.url });
    const behind = await startInspectServer({ source: new StoreInspectSource(pooled, { pollMs: 50 }) });
    try {
      const session = (await (await get(`/api/sessions/${id}`, behind)).json()) as SessionPayload;
      const res = await get(`/api/sessions/${id}/live?from=${session.events}`, behind);
      expect(res.status).toBe(200);
      // the writer talks to PostgreSQL directly; its appends notify, and the proxy drops them
      const resumed = keelson(home, ["resume", "--store", db.url, id, "a turn behind the pooler"]);
      const { appended, notices } = await readLive(res, "polling");
      expect((await resumed).code).toBe(0);
      expect(proxy.dropped()).toBeGreaterThan(0); // LISTEN was in play, and its notifications were lost
      expect(notices.map((n) => n.mode)).toEqual(["notify", "polling"]);
      expect(notices[1]!.message).toMatch(/no notification came for events \d+–\d+.*PgBouncer.*polling every 50 ms/);
      const events = appended.flatMap((a) => a.appended);
      expect(events[0]!.seq).toBe(session.events);
      expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => session.events + i));
      expect(
        appended.flatMap((a) => a.rows).some((r) => r.kind === "user" && r.text === "user: a turn behind the pooler"),
      ).toBe(true);
    } finally {
      await behind.close();
      await pooled.close();
      await proxy.close();
    }
  }, 60_000);

  it("polls from the start, and says so, when the store's watch cannot start", async () => {
    const session = (await (await get(`/api/sessions/${id}`)).json()) as SessionPayload;
    const failing = {
      label: store.label,
      load: (sid: string, o: { readonly readOnly: true }) => store.load(sid, o),
      list: () => store.list(),
      watch: () => Promise.reject(new Error("LISTEN is not supported here")),
      close: () => Promise.resolve(),
    };
    const srv = await startInspectServer({ source: new StoreInspectSource(failing, { pollMs: 50 }) });
    try {
      const res = await get(`/api/sessions/${id}/live?from=${session.events}`, srv);
      const resumed = keelson(home, ["resume", "--store", db.url, id, "a polled turn"]);
      const { appended, notices } = await readLive(res);
      expect((await resumed).code).toBe(0);
      expect(notices).toHaveLength(1);
      expect(notices[0]).toMatchObject({ mode: "polling", pollMs: 50 });
      expect(notices[0]!.message).toContain("LISTEN is not supported here");
      const events = appended.flatMap((a) => a.appended);
      expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => session.events + i));
      expect(events.at(-1)!.type).toBe("turn/end");
    } finally {
      await srv.close();
    }
  }, 60_000);
});
