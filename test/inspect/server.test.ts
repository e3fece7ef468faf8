// The inspector's server over real sessions made by `keelson run` / `resume` / `fork`: every
// request needs the token; the endpoints say exactly what the CLI says (`requests`, `--wire`,
// `cache --json`, `verify`); the server never writes, locks or repairs a log; and the live
// stream delivers a turn that `keelson resume` appends while it is open.
import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  JsonlInspectSource,
  type InspectServer,
  type LiveAppend,
  type RequestPayload,
  type SessionPayload,
  type HeaderChange,
  type SessionsPayload,
  startInspectServer,
  type VerifyPayload,
} from "../../src/inspect/index.js";
import { keelson } from "../cli/run-keelson.js";
import { type Fixture, makeFixture, ok, snapshotDir } from "./fixture.js";

let fx: Fixture;
let server: InspectServer;
let source: JsonlInspectSource;
const auth = (): Record<string, string> => ({ authorization: `Bearer ${server.token}` });
const get = (path: string, headers: Record<string, string> = auth()) =>
  fetch(`${server.origin}${path}`, { headers, redirect: "manual" });
const getJson = async <T>(path: string): Promise<T> => {
  const res = await get(path);
  expect(res.status, path).toBe(200);
  return (await res.json()) as T;
};

beforeAll(async () => {
  fx = await makeFixture();
  source = new JsonlInspectSource({ root: fx.sessions, pollMs: 100 });
  // a stand-in front end: these tests are about the server (browser.test.ts runs the real one)
  const assetsDir = join(fx.home, "ui");
  await mkdir(assetsDir);
  for (const name of ["index.html", "app.js", "app.css"]) await writeFile(join(assetsDir, name), `/* ${name} */\n`);
  server = await startInspectServer({ source, assetsDir });
}, 120_000);

afterAll(async () => {
  await server?.close();
  await source?.close();
  if (fx !== undefined) await rm(fx.home, { recursive: true, force: true });
});

describe("access token", () => {
  const data = () => [
    "/api/config",
    "/api/sessions",
    `/api/sessions/${fx.main}`,
    `/api/sessions/${fx.main}/live`,
    `/api/sessions/${fx.main}/cache`,
  ];

  it("answers 401 to every data path without the token as a Bearer header: none, a wrong one, a cookie or ?token= do not count", async () => {
    for (const path of data()) {
      expect((await get(path, {})).status, path).toBe(401);
      expect((await get(path, { authorization: "Bearer wrong" })).status, path).toBe(401);
      // the right token, but not in the header: a cookie is sent to every port of 127.0.0.1 (issue #20 F5)
      expect((await get(path, { cookie: `keelson_inspect=${server.token}` })).status, path).toBe(401);
      expect((await get(`${path}?token=${server.token}`, {})).status, path).toBe(401);
      const res = await get(path, auth());
      expect(res.status, path).toBe(200);
      await res.body?.cancel();
    }
  });

  it("prints the token in the URL's fragment (never sent), serves the page shell without it, and never sets a cookie", async () => {
    expect(server.url).toBe(`${server.origin}/#token=${server.token}`);
    for (const path of ["/", "/app.js", "/app.css"]) {
      const res = await get(path, {});
      expect(res.status, path).toBe(200);
      expect(res.headers.get("set-cookie"), path).toBeNull();
      expect(await res.text()).not.toContain(server.token);
    }
    // the old cookie trade is gone: ?token= on the page is ignored, no redirect, no cookie
    const res = await get(`/?token=${server.token}`, {});
    expect(res.status).toBe(200);
    expect(res.headers.get("set-cookie")).toBeNull();
    for (const path of data().filter((p) => !p.endsWith("/live"))) {
      const ok = await get(path);
      expect(ok.status, path).toBe(200);
      expect(ok.headers.get("set-cookie"), path).toBeNull();
    }
  });

  it("refuses another Host (DNS rebinding) and any method but GET", async () => {
    const res = await fetch(`${server.origin}/api/sessions`, { method: "POST", headers: auth() });
    expect(res.status).toBe(405);
    const { request } = await import("node:http");
    const status = await new Promise<number>((done) =>
      request(
        {
          host: "127.0.0.1",
          port: server.port,
          path: "/api/sessions",
          headers: { ...auth(), host: "evil.example:80" },
        },
        (r) => {
          r.resume();
          done(r.statusCode!);
        },
      ).end(),
    );
    expect(status).toBe(421);
  });
});

describe("endpoints say what the CLI says", () => {
  it("lists the sessions with turns, last prompt and the fork tree", async () => {
    const { sessions } = await getJson<SessionsPayload>("/api/sessions");
    const main = sessions.find((s) => s.kind === "session" && s.id === fx.main);
    expect(main).toMatchObject({ turns: 2, lastPrompt: "and what changed?", children: [fx.fork], open: false });
    expect(sessions.find((s) => s.kind === "session" && s.id === fx.fork)).toMatchObject({ parentSession: fx.main });
    expect(sessions.find((s) => s.kind === "session" && s.id === fx.crashed)).toMatchObject({ open: true });
  });

  it("serves `keelson requests <id>` byte for byte, and each request as `--step N` and `--wire` print it", async () => {
    for (const id of [fx.main, fx.fork]) {
      const cli = ok(await keelson(fx.home, ["requests", id]));
      const text = await (await get(`/api/sessions/${id}/requests?format=cli`)).text();
      expect(`${text}\n`).toBe(cli.stdout);
      const count = (JSON.parse(cli.stdout) as unknown[]).length;
      expect(count).toBeGreaterThanOrEqual(3);
      // `--wire` without `--step` prints every request's body, one per line: one process per wire
      const bodies = new Map<string, string[]>();
      for (const wire of ["anthropic", "openai", "deepseek"] as const) {
        const lines = ok(await keelson(fx.home, ["requests", id, "--wire", wire])).stdout.split("\n");
        expect(lines.pop()).toBe("");
        expect(lines).toHaveLength(count);
        bodies.set(wire, lines);
      }
      for (let n = 1; n <= count; n++) {
        const payload = await getJson<RequestPayload>(`/api/sessions/${id}/requests/${n}`);
        for (const wire of ["anthropic", "openai", "deepseek"] as const) {
          const body = bodies.get(wire)![n - 1]!;
          expect(payload.wire[wire], `${id} request ${n} ${wire}`).toBe(body);
          expect(await (await get(`/api/sessions/${id}/requests/${n}/wire/${wire}`)).text()).toBe(body);
        }
        if (n !== count) continue;
        // `--step N` (text and wire) is the same request: checked on the last one
        expect(`${payload.text}\n`).toBe(ok(await keelson(fx.home, ["requests", id, "--step", String(n)])).stdout);
        const stepWire = ok(await keelson(fx.home, ["requests", id, "--step", String(n), "--wire", "openai"])).stdout;
        expect(stepWire).toBe(`${bodies.get("openai")![n - 1]}\n`);
      }
    }
  }, 120_000);

  it("serves `keelson cache --json` byte for byte", async () => {
    for (const id of [fx.main, fx.fork, fx.crashed]) {
      const cli = ok(await keelson(fx.home, ["cache", id, "--json"]));
      expect(`${await (await get(`/api/sessions/${id}/cache`)).text()}\n`).toBe(cli.stdout);
    }
  }, 60_000); // three CLI processes and three cold token counts

  it("marks the prefix request-only with the loop instance that composed it, and where the cache breakpoints fall", async () => {
    const requests = JSON.parse(ok(await keelson(fx.home, ["requests", fx.main])).stdout) as unknown[];
    const last = await getJson<RequestPayload>(`/api/sessions/${fx.main}/requests/${requests.length}`);
    expect(last.prefix.length).toBeGreaterThan(0);
    expect(last.instance).toMatchObject({ reason: "resume", number: 2 });
    const first = await getJson<RequestPayload>(`/api/sessions/${fx.main}/requests/1`);
    expect(first.instance).toMatchObject({ reason: "initial", number: 1 });
    // tools+system, the prefix's end, and the last message (the Anthropic adapter's rule)
    expect(first.breakpoints.map((b) => b.segment)).toContain("system");
    const messages = first.breakpoints.filter((b) => b.segment === "message").map((b) => b.message);
    expect(messages).toContain(first.prefix.length - 1);
    expect(messages).toContain(first.messages - 1);
    const marks = (JSON.stringify(JSON.parse(first.wire.anthropic)).match(/cache_control/g) ?? []).length;
    expect(first.breakpoints).toHaveLength(marks);
  });

  it("lists the header records with their reasons; the resume snapshot shows the drifted prefix", async () => {
    const changes = await getJson<HeaderChange[]>(`/api/sessions/${fx.main}/headers`);
    expect(changes[0]).toMatchObject({ kind: "snapshot", reason: "initial" });
    expect(changes[0]!.before).toBeUndefined();
    const resume = changes.find((c) => c.reason === "resume")!;
    expect(resume.changed).toContain("messagePrefix");
    expect(JSON.stringify(resume.after.messagePrefix)).toContain("todo.md");
    expect(JSON.stringify(resume.before!.messagePrefix)).not.toContain("todo.md");
  });

  it("shows the timeline with loop instances, tool calls and the fork boundary", async () => {
    const main = await getJson<SessionPayload>(`/api/sessions/${fx.main}`);
    const instances = main.rows.filter((r) => r.kind === "instance").map((r) => r.text);
    expect(instances).toEqual(["loop instance 1 (new session)", "loop instance 2 (resume)"]);
    expect(main.rows.some((r) => r.kind === "tool-call" && r.text.includes("read"))).toBe(true);
    expect(main.rows.filter((r) => r.kind === "step" && r.request !== undefined).map((r) => r.request)).toEqual([
      1, 2, 3,
    ]);
    expect(await getJson<VerifyPayload>(`/api/sessions/${fx.main}/verify`)).toMatchObject({
      clean: true,
      problems: [],
    });
    const fork = await getJson<SessionPayload>(`/api/sessions/${fx.fork}`);
    expect(fork.rows.some((r) => r.kind === "instance" && r.text.startsWith(`fork of ${fx.main}`))).toBe(true);
    expect(fork.rows.filter((r) => r.inherited && r.kind !== "instance").length).toBe(fork.seedLength);
  });

  it("reports `keelson verify`'s problems with file and line", async () => {
    const cli = await keelson(fx.home, ["verify", fx.crashed]);
    expect(cli.code).toBe(1);
    const verify = await getJson<VerifyPayload>(`/api/sessions/${fx.crashed}/verify`);
    expect(verify.clean).toBe(false);
    for (const p of verify.problems) {
      const where = `${p.where}${p.line === undefined ? "" : `:${p.line}`}: ${p.seq === undefined ? "" : `seq ${p.seq}: `}${p.code}: ${p.message}`;
      expect(cli.stdout).toContain(where);
    }
    expect(verify.problems.map((p) => p.code)).toEqual(["open-turn"]);
  });

  it("answers 404 for an unknown session, request or event, and 400 for an invalid id", async () => {
    expect((await get("/api/sessions/00000000-0000-4000-8000-000000000000")).status).toBe(404);
    expect((await get(`/api/sessions/${fx.main}/requests/99`)).status).toBe(404);
    expect((await get(`/api/sessions/${fx.main}/events/99999`)).status).toBe(404);
    expect((await get("/api/sessions/..%2F..%2Fetc")).status).toBe(400);
  });

  it("answers 400 (not 500) to malformed percent-encoding anywhere in the path", async () => {
    for (const path of [
      "/api/sessions/%E0%A4%A",
      "/api/%ZZ",
      `/api/sessions/${fx.main}/events/%E0%A4%A`,
      `/api/sessions/${fx.main}/requests/%`,
    ]) {
      const res = await get(path);
      expect(res.status, path).toBe(400);
      expect(((await res.json()) as { error: string }).error, path).toBe("bad-request");
    }
    expect((await get("/api/sessions")).status).toBe(200); // and the server goes on
  });
});

describe("read-only", () => {
  it("never writes, locks or repairs a log: bytes and mtimes unchanged, no .lock, the open turn left open", async () => {
    const before = await snapshotDir(fx.sessions);
    const ids = [fx.main, fx.fork, fx.crashed];
    await get("/api/sessions");
    for (const id of ids) {
      await get(`/api/sessions/${id}`);
      for (const rest of [
        "/requests",
        "/requests?format=cli",
        "/requests/1",
        "/requests/1/wire/anthropic",
        "/headers",
        "/cache",
        "/verify",
        "/events/0",
      ])
        expect((await get(`/api/sessions/${id}${rest}`)).status, `${id}${rest}`).toBe(200);
      const live = await get(`/api/sessions/${id}/live?from=0`);
      const reader = live.body!.getReader();
      await reader.read(); // the stream is open and the watch delivered (or not) — it must not write either
      await reader.cancel();
    }
    expect(await snapshotDir(fx.sessions)).toEqual(before);
    expect(Object.keys(before).filter((n) => !n.endsWith(".jsonl"))).toEqual([]);
    const crashed = await getJson<SessionPayload>(`/api/sessions/${fx.crashed}`);
    expect(crashed.openTurn).toBe(2);
  });
});

describe("live", () => {
  it("streams the turn `keelson resume` appends while the stream is open", async () => {
    const session = await getJson<SessionPayload>(`/api/sessions/${fx.main}`);
    const res = await get(`/api/sessions/${fx.main}/live?from=${session.events}`);
    expect(res.headers.get("content-type")).toMatch(/text\/event-stream/);
    const reader = res.body!.getReader();
    const resumed = keelson(fx.home, ["resume", fx.main, "a live turn"]);
    const appended: LiveAppend[] = [];
    let buffer = "";
    const decoder = new TextDecoder();
    while (!appended.some((a) => a.appended.some((e) => e.type === "turn/end"))) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let cut = buffer.indexOf("\n\n");
      while (cut >= 0) {
        const message = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        const data = /^event: append\ndata: (.*)$/m.exec(message);
        if (data !== null) appended.push(JSON.parse(data[1]!) as LiveAppend);
        cut = buffer.indexOf("\n\n");
      }
    }
    await reader.cancel();
    ok(await resumed);
    const events = appended.flatMap((a) => a.appended);
    expect(events[0]!.seq).toBe(session.events);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => session.events + i));
    const rows = appended.flatMap((a) => a.rows);
    expect(rows.some((r) => r.kind === "instance" && r.text === "loop instance 3 (resume)")).toBe(true);
    expect(rows.some((r) => r.kind === "user" && r.text === "user: a live turn")).toBe(true);
  }, 60_000);
});

describe("replay", () => {
  it("is 404 when the inspector was started without a replay (the library's default)", async () => {
    const res = await get(`/api/sessions/${fx.main}/replay`);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { message: string }).message).toContain("started without replay");
  });

  it("serves the replay it was given, computed once per loaded log", async () => {
    const asked: string[] = [];
    const replaying = await startInspectServer({
      source,
      assetsDir: join(fx.home, "ui"),
      replay: async (session) => {
        asked.push(session.id);
        return { identical: true, text: `replay of ${session.id}: identical`, report: { sessionId: session.id } };
      },
    });
    try {
      const headers = { authorization: `Bearer ${replaying.token}` };
      for (let i = 0; i < 2; i++) {
        const res = await fetch(`${replaying.origin}/api/sessions/${fx.main}/replay`, { headers });
        expect(res.status).toBe(200);
        expect(await res.json()).toEqual({
          identical: true,
          text: `replay of ${fx.main}: identical`,
          report: { sessionId: fx.main },
        });
      }
      expect(asked).toEqual([fx.main]);
      expect((await fetch(`${replaying.origin}/api/sessions/${fx.main}/replay`)).status).toBe(401);
    } finally {
      await replaying.close();
    }
  });
});
