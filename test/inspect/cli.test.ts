// `keelson inspect` as a subprocess: prints the URL with its token (and opens nothing), serves
// only with the token, serves the store `--store` names wherever the flag stands, refuses a bad
// id or port as bad input (exit 2), and stops cleanly on SIGTERM.
import { copyFile, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { keelson } from "../cli/run-keelson.js";
import { type Fixture, makeFixture, snapshotDir, startInspect } from "./fixture.js";

let fx: Fixture;

beforeAll(async () => {
  fx = await makeFixture();
}, 120_000);

afterAll(() => (fx === undefined ? undefined : rm(fx.home, { recursive: true, force: true })));

it("prints the URL with a token and the session, serves only with the token, and exits 0 on SIGTERM", async () => {
  const before = await snapshotDir(fx.sessions);
  const server = await startInspect(fx.home, [fx.main]);
  expect(server.url).toBe(`${server.origin}/#token=${server.token}&session=${fx.main}`);
  expect(server.token.length).toBeGreaterThanOrEqual(40);
  expect((await fetch(`${server.origin}/api/sessions`)).status).toBe(401);
  const res = await fetch(`${server.origin}/api/sessions/${fx.main}`, {
    headers: { authorization: `Bearer ${server.token}` },
  });
  expect(res.status).toBe(200);
  expect(((await res.json()) as { id: string }).id).toBe(fx.main);
  expect(server.stderr()).toContain("read-only");
  expect(await server.stop()).toBe(0);
  expect(await snapshotDir(fx.sessions)).toEqual(before);
}, 60_000);

it("serves a FILE target's directory and --port when given", async () => {
  const probe = await startInspect(fx.home, []);
  const port = Number(new URL(probe.origin).port);
  await probe.stop();
  const server = await startInspect(fx.home, [`${fx.sessions}/${fx.fork}.jsonl`, "--port", String(port)]);
  expect(server.origin).toBe(`http://127.0.0.1:${port}`);
  expect(server.url.endsWith(`&session=${fx.fork}`)).toBe(true);
  expect(await server.stop()).toBe(0);
}, 60_000);

it("serves the store --store names, before or after the command's name (not $KEELSON_HOME's)", async () => {
  // a second store holding one session; $KEELSON_HOME's has three
  const other = join(fx.home, "other-store");
  await mkdir(other, { recursive: true });
  await copyFile(join(fx.sessions, `${fx.main}.jsonl`), join(other, `${fx.main}.jsonl`));
  for (const [label, start] of [
    ["inspect --store DIR", () => startInspect(fx.home, ["--store", other])],
    ["keelson --store DIR inspect", () => startInspect(fx.home, [], { before: ["--store", other] })],
    ["inspect ID --store DIR", () => startInspect(fx.home, [fx.main, "--store", other])],
  ] as const) {
    const server = await start();
    const get = async <T>(path: string): Promise<T> =>
      (await (
        await fetch(`${server.origin}${path}`, { headers: { authorization: `Bearer ${server.token}` } })
      ).json()) as T;
    expect((await get<{ source: string }>("/api/config")).source, label).toBe(other);
    const { sessions } = await get<{ sessions: { id?: string }[] }>("/api/sessions");
    expect(
      sessions.map((s) => s.id),
      label,
    ).toEqual([fx.main]);
    expect(server.stderr(), label).toContain(`inspecting ${other} read-only`);
    expect(await server.stop()).toBe(0);
  }
}, 60_000);

it("refuses an unknown session and a bad port as bad input (exit 2), writing nothing", async () => {
  const unknown = await keelson(fx.home, ["inspect", "00000000-0000-4000-8000-000000000000"]);
  expect(unknown.code).toBe(2);
  expect(unknown.stderr).toMatch(/^keelson: unknown session 00000000-0000-4000-8000-000000000000/);
  const port = await keelson(fx.home, ["inspect", "--port", "http"]);
  expect(port.code).toBe(2);
  expect(port.stderr).toContain('bad --port "http"');
});

// Found from outside: the Replay tab of a session whose working directory is gone answered 500
// `internal`; it is the page's 422 with `keelson replay`'s own words.
it("a replay that cannot run here (the session's working directory is gone) is 422 unprocessable", async () => {
  const id = "0000-cwd-gone";
  const lines = (await readFile(join(fx.sessions, `${fx.main}.jsonl`), "utf8")).split("\n");
  const header = JSON.parse(lines[0]!) as { id: string; cwd?: string };
  lines[0] = JSON.stringify({ ...header, id, cwd: join(fx.home, "no-such-workspace") });
  await writeFile(join(fx.sessions, `${id}.jsonl`), lines.join("\n"));
  const server = await startInspect(fx.home, [id]);
  try {
    const res = await fetch(`${server.origin}/api/sessions/${id}/replay`, {
      headers: { authorization: `Bearer ${server.token}` },
    });
    expect(res.status).toBe(422);
    const body = (await res.json()) as { error: string; message: string };
    expect(body.error).toBe("unprocessable");
    expect(body.message).toContain("no-such-workspace");
  } finally {
    expect(await server.stop()).toBe(0);
    await rm(join(fx.sessions, `${id}.jsonl`));
  }
}, 60_000);
