// `keelson fork` stores the child as a reference to the parent's log (decision 0009), and every
// inspection command reads it — by id and by file path — exactly as a copied log; a child
// whose parent log is gone is reported, naming both files, never shown as a shorter log.
import { readFile, rename } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keelson, sessionIdOf, tempHome } from "./run-keelson.js";

let home: string;
let parent: string;
let child: string;
const fileOf = (id: string): string => join(home, "sessions", `${id}.jsonl`);

beforeAll(async () => {
  home = await tempHome();
  parent = sessionIdOf(await keelson(home, ["run", "hello there"]));
  const fork = await keelson(home, ["fork", parent]);
  expect(fork).toMatchObject({ code: 0, stderr: "" });
  child = fork.stdout.trim();
  const resumed = await keelson(home, ["resume", child, "and on the child"]);
  expect(resumed.code).toBe(0);
}, 60_000);

afterAll(async () => {
  const { rm } = await import("node:fs/promises");
  await rm(home, { recursive: true, force: true });
});

describe("keelson fork by reference", () => {
  it("writes the child's header with seedFrom and none of the parent's lines", async () => {
    const lines = (await readFile(fileOf(child), "utf8")).trim().split("\n");
    const header = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(header).toMatchObject({ version: 2, parentSession: parent, seedLength: 7, seedFrom: { session: parent } });
    const firstOwn = JSON.parse(lines[1]!) as { seq: number; type: string };
    expect(firstOwn).toMatchObject({ seq: 7, type: "turn/start" });
    expect(await readFile(fileOf(child), "utf8")).not.toContain("hello there");
  });

  it("verify, show and requests read the child by id and by path like any log", async () => {
    const [byId, byPath, show, requests, parentRequests] = await Promise.all([
      keelson(home, ["verify", child]),
      keelson(home, ["verify", fileOf(child)]),
      keelson(home, ["show", child]),
      keelson(home, ["requests", fileOf(child)]),
      keelson(home, ["requests", parent]),
    ]);
    for (const r of [byId, byPath, show, requests, parentRequests]) expect(r).toMatchObject({ code: 0, stderr: "" });
    expect(byId.stdout).toMatch(/^clean: \d+ events, 2 turns, 2 requests/);
    expect(byPath.stdout).toBe(byId.stdout.replace(fileOf(child), fileOf(child)));
    expect(show.stdout).toContain(`fork of ${parent} (its first 7 events are the parent's)`);
    expect(show.stdout).toContain("user: hello there");
    expect(show.stdout).toContain("user: and on the child");
    const list = JSON.parse(requests.stdout) as { request: unknown }[];
    expect(list).toHaveLength(2);
    // The child's first request is the parent's, byte for byte.
    expect(JSON.stringify(list[0])).toBe(JSON.stringify((JSON.parse(parentRequests.stdout) as unknown[])[0]));
  });

  it("with the parent's log gone, verify reports it naming both files (exit 1) and show refuses", async () => {
    await rename(fileOf(parent), `${fileOf(parent)}.away`);
    try {
      const [verify, show] = await Promise.all([keelson(home, ["verify", child]), keelson(home, ["show", child])]);
      expect(verify.code).toBe(1);
      expect(verify.stdout).toContain(fileOf(child));
      expect(verify.stdout).toContain(`(${fileOf(parent)}), which does not exist`);
      expect(verify.stdout).toContain("not clean");
      expect(show.code).not.toBe(0);
      expect(show.stderr).toContain("which does not exist");
    } finally {
      await rename(`${fileOf(parent)}.away`, fileOf(parent));
    }
  });
});
