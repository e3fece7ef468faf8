// Bounded memory per request (issue #20 F6). A 120k-event log took the inspector to 3.5 GB for
// `/requests` and killed it on `/verify`: both kept every reconstructed request materialized at
// once (quadratic in the log). Here a 20k-event log is served by `keelson inspect` under an
// 80 MB heap — the old code dies on either endpoint (heap out of memory), the new one answers
// both (it does under 48 MB too) and lives on. The cache report, which holds every request at once by
// design (src/audit), is refused past a budget with a clean 413 naming it.
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  JsonlInspectSource,
  type RequestListItem,
  startInspectServer,
  type VerifyPayload,
} from "../../src/inspect/index.js";
import { tempHome } from "../cli/run-keelson.js";
import { type InspectProcess, startInspect, writeLargeSession } from "./fixture.js";

let home: string;
let sessions: string;
let large: string;
let small: string;

beforeAll(async () => {
  home = await tempHome();
  sessions = join(home, "sessions");
  await mkdir(sessions, { recursive: true });
  large = await writeLargeSession(sessions, 20_000);
  small = await writeLargeSession(sessions, 200);
}, 120_000);

afterAll(() => (home === undefined ? undefined : rm(home, { recursive: true, force: true })));

describe("a 20k-event log under an 80 MB heap (the new code answers under 48 MB)", () => {
  const servers: InspectProcess[] = [];
  afterAll(async () => {
    for (const server of servers) await server.stop();
  });
  /** A fresh inspector per endpoint: each must survive on its own. */
  const fresh = async () => {
    const server = await startInspect(home, [], { node: ["--max-old-space-size=80"] });
    servers.push(server);
    return (path: string) => fetch(`${server.origin}${path}`, { headers: { authorization: `Bearer ${server.token}` } });
  };

  it("answers /verify, and the server lives on", async () => {
    const get = await fresh();
    const verify = await get(`/api/sessions/${large}/verify`);
    expect(verify.status).toBe(200);
    const report = (await verify.json()) as VerifyPayload;
    expect(report).toMatchObject({ clean: true, problems: [] });
    expect(report.events).toBeGreaterThanOrEqual(20_000);
    expect(report.requests).toBeGreaterThan(3_000);
    expect((await get("/api/config")).status).toBe(200);
  }, 120_000);

  it("answers /requests, and the server lives on", async () => {
    const get = await fresh();
    const requests = await get(`/api/sessions/${large}/requests`);
    expect(requests.status).toBe(200);
    const list = (await requests.json()) as RequestListItem[];
    expect(list.length).toBeGreaterThan(3_000);
    // each request's message count, though no two are held at once: 4 more per turn (user, call, result, answer)
    expect(list.at(-1)!.messages).toBe(list.at(-3)!.messages + 4);
    expect((await get("/api/config")).status).toBe(200);
  }, 120_000);
});

describe("the cache report's budget", () => {
  it("refuses the cache report past maxHeldMessages with a 413 naming the limit; other views and the server go on", async () => {
    const source = new JsonlInspectSource({ root: sessions });
    const server = await startInspectServer({ source, maxHeldMessages: 100 });
    const get = (path: string) =>
      fetch(`${server.origin}${path}`, { headers: { authorization: `Bearer ${server.token}` } });
    try {
      const list = (await (await get(`/api/sessions/${small}/requests`)).json()) as RequestListItem[];
      const held = list.reduce((n, r) => n + r.messages, 0);
      expect(held).toBeGreaterThan(100);
      const res = await get(`/api/sessions/${small}/cache`);
      expect(res.status).toBe(413);
      const body = (await res.json()) as { error: string; message: string };
      expect(body.error).toBe("too-large");
      expect(body.message).toContain(`would hold ${held} request messages at once`);
      expect(body.message).toContain("the inspector's limit is 100");
      expect(body.message).toContain(`keelson cache ${small} --json`);
      expect((await get(`/api/sessions/${small}/verify`)).status).toBe(200);
      expect((await get(`/api/sessions/${small}`)).status).toBe(200);
    } finally {
      await server.close();
    }
    // under the default budget the same report is served
    const roomy = await startInspectServer({ source });
    try {
      const res = await fetch(`${roomy.origin}/api/sessions/${small}/cache`, {
        headers: { authorization: `Bearer ${roomy.token}` },
      });
      expect(res.status).toBe(200);
    } finally {
      await roomy.close();
      await source.close();
    }
  }, 60_000);
});
