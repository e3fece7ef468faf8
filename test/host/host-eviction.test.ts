// Eviction (issue #22 §4): idle agents beyond `maxOpen` (least recently used first) and after
// `idleMs` are disposed — flushed and released, nothing lost — and the next prompt resumes the
// session, whose log continues and verifies clean. Time is a manual clock; the default clock's
// timer never keeps a process alive.
import { spawnSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import type { SessionEvent } from "../../src/session/index.js";
import {
  GatedModel,
  ManualClock,
  profileOf,
  promptsByTurn,
  recordingStore,
  storedLog,
  useHostFixture,
} from "./support.js";
import { afterThisTest } from "../support/test-cleanups.js";

const fixture = useHostFixture();

/** How many loop instances ran requests on the session: its `request/header` snapshots. */
const instances = (events: readonly SessionEvent[]): number =>
  events.filter((e) => e.type === "request/header" && (e.data as { reason?: string }).reason !== "fallback").length;

describe("maxOpen", () => {
  test("opening one more than maxOpen evicts the least recently used idle agent; its next prompt resumes it", async () => {
    const model = new GatedModel();
    const host = fixture().host({ profile: profileOf(model.provider), maxOpen: 2 });
    await host.send("s1", "one");
    await host.send("s2", "one");
    await host.send("s1", "two"); // s1 is now the most recently used
    await host.send("s3", "one"); // evicts s2
    expect(host.stats().open).toBe(2);
    await host.send("s1", "three"); // still open: no new instance
    await host.send("s2", "two"); // resumed (evicts s3, the least recently used now)
    await host.close();
    const s1 = await storedLog(fixture().store, "s1");
    const s2 = await storedLog(fixture().store, "s2");
    expect(instances(s1.events)).toBe(1);
    expect(instances(s2.events)).toBe(2);
    expect(promptsByTurn(s2.events)).toEqual([["one"], ["two"]]);
    expect(s1.report.ok && s2.report.ok).toBe(true);
  });

  test("busy agents are never evicted: the host is over maxOpen while they run, back under it once they idle", async () => {
    const model = new GatedModel(["held", "free"]);
    const host = fixture().host({ profile: profileOf(model.provider), maxOpen: 1 });
    const held = host.send("s1", "held");
    const free = host.send("s2", "free");
    await Promise.all([model.called("held"), model.called("free")]);
    expect(host.stats()).toEqual({ open: 2, running: 2, queued: 0 });
    model.release("free");
    await free;
    expect(host.stats()).toEqual({ open: 1, running: 1, queued: 0 }); // s2 evicted as it went idle
    model.release("held");
    await held;
    expect(host.stats()).toEqual({ open: 1, running: 0, queued: 0 });
  });
});

describe("idleMs", () => {
  test("an agent idle for idleMs is evicted (flushed and released); the next prompt resumes it and the log continues", async () => {
    const clock = new ManualClock();
    const model = new GatedModel();
    const host = fixture().host({ profile: profileOf(model.provider), idleMs: 1000, clock });
    await host.send("s1", "one");
    clock.advance(999);
    expect(host.stats().open).toBe(1);
    clock.advance(1);
    expect(host.stats().open).toBe(0);
    expect(clock.pending).toBe(0); // nothing left to time
    const again = await host.send("s1", "two");
    expect(again.turn).toBe(2);
    await host.close();
    const log = await storedLog(fixture().store, "s1");
    expect(promptsByTurn(log.events)).toEqual([["one"], ["two"]]);
    expect(instances(log.events)).toBe(2);
    expect(log.report.ok).toBe(true);
  });

  test("one timer at a time, for the least recently used idle agent; a busy agent is not timed", async () => {
    const clock = new ManualClock();
    const model = new GatedModel(["held"]);
    const host = fixture().host({ profile: profileOf(model.provider), idleMs: 1000, clock });
    await host.send("a", "x");
    clock.advance(500);
    await host.send("b", "x");
    const held = host.send("a", "held"); // a is busy now
    await model.called("held");
    expect(clock.pending).toBe(1);
    clock.advance(600); // b has been idle 600 ms; a is busy
    expect(host.stats().open).toBe(2);
    clock.advance(400);
    expect(host.stats()).toEqual({ open: 1, running: 1, queued: 0 }); // b evicted, a still running
    model.release("held");
    await held;
    clock.advance(1000);
    expect(host.stats().open).toBe(0);
  });

  test("a dispose that fails is reported; the store keeps the session and releases it before the next open", async () => {
    const model = new GatedModel();
    const clock = new ManualClock();
    const errors: string[] = [];
    let failRelease = true;
    const { store } = recordingStore(fixture().store, {
      release: async (id: string) => {
        if (failRelease) {
          failRelease = false;
          throw new Error("disk full (test)");
        }
        return fixture().store.release(id);
      },
    });
    const host = fixture().host({
      store,
      profile: profileOf(model.provider),
      idleMs: 10,
      clock,
      onError: (_error, where) => errors.push(where),
    });
    await host.send("s1", "one");
    clock.advance(10);
    const again = await host.send("s1", "two");
    expect(errors).toEqual(["evicting session s1"]);
    expect(again.turn).toBe(2);
    await host.close();
    expect(promptsByTurn((await storedLog(fixture().store, "s1")).events)).toEqual([["one"], ["two"]]);
  });
});

test("the default clock's timer never keeps the process alive (a script ends without host.close)", async () => {
  const root = await mkdtemp(join(tmpdir(), "keelson-host-unref-"));
  afterThisTest(() => rm(root, { recursive: true, force: true }));
  const script = `
    import { createAgentHost } from "./dist/host/index.js";
    import { ScriptedProvider } from "./dist/llm/core.js";
    import { JsonlSessionStore } from "./dist/store/index.js";
    const store = new JsonlSessionStore({ root: ${JSON.stringify(root)} });
    const host = createAgentHost({ store, profile: { provider: new ScriptedProvider([], { fallback: { text: "ok" } }), model: "m" }, idleMs: 3_600_000 });
    const outcome = await host.send("s1", "hi");
    console.log(outcome.text, JSON.stringify(host.stats()));
  `;
  const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
    encoding: "utf8",
    timeout: 60_000,
  });
  expect(run.stderr).toBe("");
  expect(run.stdout.trim()).toBe('ok {"open":1,"running":0,"queued":0}');
  expect(run.status).toBe(0);
}, 60_000);
