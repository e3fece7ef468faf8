// A worker hears the queue (QUEUE_CHANNEL) only while a slot may claim (#20 F21, decision 0030):
// one whose every slot runs a turn UNLISTENs at the first notification it hears, so the rest of
// the fleet's enqueues and claims no longer wake it; a slot about to wait LISTENs again and claims
// once more first, so a turn enqueued while nobody listened is not left to the poll. The polls
// here are 10 minutes long: every turn below is claimed because of what the worker heard, or
// because a slot looked again.
import pg from "pg";
import { afterEach, describe, expect, test } from "vitest";
import { EmulatorProvider } from "../../src/emulator/index.js";
import { type AgentProfile, QUEUE_CHANNEL, type Worker } from "../../src/fleet/index.js";
import type { PgPool } from "../../src/store/postgres/index.js";
import { until } from "../support/until.js";
import { useFleetDatabase } from "./fleet-harness.js";
import { profiles } from "./fixtures/fleet-profiles.mjs";

const database = useFleetDatabase();

interface Hearing {
  readonly pool: PgPool;
  /** Notifications delivered to the worker's connections, by channel. */
  readonly heard: Map<string, number>;
  /** `LISTEN keelson_queue` / `UNLISTEN keelson_queue` statements sent. */
  readonly statements: { listen: number; unlisten: number };
  /** Runs (awaited) before the next `LISTEN keelson_queue` is sent, then is cleared. */
  beforeListen: (() => Promise<void>) | undefined;
  end(): Promise<void>;
}

function hearingPool(url: string): Hearing {
  const pool = new pg.Pool({ connectionString: url, max: 8 });
  const hearing: Hearing = {
    pool: pool as unknown as PgPool,
    heard: new Map(),
    statements: { listen: 0, unlisten: 0 },
    beforeListen: undefined,
    end: () => pool.end(),
  };
  pool.on("error", () => undefined);
  pool.on("connect", (client) => {
    client.on("error", () => undefined);
    client.on("notification", (m: { channel: string }) =>
      hearing.heard.set(m.channel, (hearing.heard.get(m.channel) ?? 0) + 1),
    );
    const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      if (args[0] === `UNLISTEN ${QUEUE_CHANNEL}`) hearing.statements.unlisten++;
      if (args[0] !== `LISTEN ${QUEUE_CHANNEL}`) return query(...args);
      hearing.statements.listen++;
      const before = hearing.beforeListen;
      hearing.beforeListen = undefined;
      return before === undefined ? query(...args) : before().then(() => query(...args));
    };
  });
  return hearing;
}

/** A profile whose model answers once `open()` was called; `reached` resolves when the model is first called. */
function gated(): { profile: AgentProfile; open: () => void; reached: Promise<void> } {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  let reach!: () => void;
  const reached = new Promise<void>((resolve) => {
    reach = resolve;
  });
  const profile: AgentProfile = {
    provider: () =>
      new EmulatorProvider({
        model: async () => {
          reach();
          await gate;
          return { text: "through the gate" };
        },
      }),
    model: "emulator:gate",
  };
  return { profile, open, reached };
}

describe("hearing the queue only while a slot may claim", () => {
  const opened: Hearing[] = [];
  const workers: Worker[] = [];
  afterEach(async () => {
    for (const w of workers.splice(0)) await w.stop({ mode: "cancel" });
    for (const p of opened.splice(0)) await p.end();
  });

  test("a busy worker stops hearing enqueues; it hears again, and looks once more, before a slot waits", async () => {
    const { startWorker } = await import("../../src/fleet/index.js");
    const client = await database().client();
    const hearing = hearingPool(database().url);
    opened.push(hearing);
    const done = async (id: string) => expect((await client.awaitTurn(id, { timeoutMs: 20_000 })).status).toBe("done");
    const gate = gated();
    workers.push(
      await startWorker({
        store: hearing.pool,
        profiles: { echo: profiles.echo, gate: gate.profile },
        concurrency: 1,
        pollMs: 600_000,
      }),
    );
    expect(hearing.statements.listen).toBe(1); // at start, before the slot's first claim

    // The one slot runs a turn that waits at the gate: nothing it hears now can be claimed.
    const held = await client.enqueueTurn({ sessionId: "hear-1", prompt: "wait", profile: "gate" });
    await until(async () => (await client.turn(held)).status === "running", "the gated turn running");
    // Running in the worker, not only claimed in the table: its slot counts as busy from here (the
    // claim's own notify statement comes between the two; enqueues heard in that window found the
    // slot not yet counted, and under load no later notification came to deafen it).
    await gate.reached;
    const busy = [];
    for (let i = 0; i < 3; i++)
      busy.push(await client.enqueueTurn({ sessionId: `hear-b${i}`, prompt: `busy ${i}`, profile: "echo" }));
    await until(() => hearing.statements.unlisten === 1, "the busy worker's UNLISTEN");
    // After the UNLISTEN, enqueues (and claims) on the queue channel no longer reach the worker.
    // A sentinel on the follow channel (always LISTENed) comes after them in commit order.
    const heardBefore = hearing.heard.get(QUEUE_CHANNEL) ?? 0;
    for (let i = 3; i < 6; i++)
      busy.push(await client.enqueueTurn({ sessionId: `hear-b${i}`, prompt: `busy ${i}`, profile: "echo" }));
    await database().query("SELECT pg_notify('keelson_follow', 'hear-sentinel')");
    await until(() => (hearing.heard.get("keelson_follow") ?? 0) >= 1, "the sentinel");
    expect(hearing.heard.get(QUEUE_CHANNEL) ?? 0).toBe(heardBefore);
    // Before the UNLISTEN took effect at most five were sent: the held turn's queued and running, and
    // the three busy enqueues' (under load all five can arrive before it; a bound of 4 flaked once).
    expect(heardBefore).toBeLessThanOrEqual(5);

    // The gate opens: the slot finishes, then claims the waiting turns one after the other
    // (a slot that finished looks again by itself), then waits — hearing the queue again first.
    // A turn enqueued after its last (empty) claim and before that LISTEN sends no notification
    // the worker hears: the slot's look after the LISTEN finds it, not the 10-minute poll.
    let unheard: string | undefined;
    /** Which LISTEN the enqueue came before (counted as it is sent: read here, not after the fact). */
    let beforeListenNo: number | undefined;
    hearing.beforeListen = async () => {
      beforeListenNo = hearing.statements.listen;
      unheard = await client.enqueueTurn({ sessionId: "hear-0", prompt: "before the LISTEN", profile: "echo" });
    };
    gate.open();
    await done(held);
    for (const id of busy) await done(id);
    await until(() => unheard !== undefined, "the enqueue before the second LISTEN");
    // The second LISTEN. (Read later, the count may already be 3: the slot runs `unheard`, may hear
    // its own notifications while busy and UNLISTEN, then LISTEN again before it waits — a fast
    // worker does all that before this test's next poll.)
    expect(beforeListenNo).toBe(2);
    await done(unheard!);
    const later = await client.enqueueTurn({ sessionId: "hear-2", prompt: "heard again", profile: "echo" });
    await done(later);
  }, 60_000);
});
