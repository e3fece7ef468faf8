// The live tail: `watch` on one store instance sees what another instance (another process, as
// far as the database can tell) commits — every new event, in seq order, exactly once — through
// LISTEN/NOTIFY, and nothing after `close`.
import { afterEach, describe, expect, test } from "vitest";
import type { SessionEvent } from "../../src/session/index.js";
import { LogDriver, newSession, twoTurnLog } from "../support/builders.js";
import { CATCH_UP_MS } from "../../src/store/postgres/event-tail.js";
import { usePgDatabase } from "./postgres-harness.js";

const database = usePgDatabase();
afterEach(async () => {
  await database().closeStores();
  await database().empty();
});

async function until(what: string, check: () => boolean, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe("watch", () => {
  test("a second store sees the events the first appends, in order, exactly once, across many flushes", async () => {
    const writer = database().open();
    const session = newSession("followed");
    await writer.create(session.header);
    const persistence = writer.attach(session);
    new LogDriver(session).turn({ prompt: "before the watch", steps: [{ text: "old" }] });
    await persistence.flush();
    const before = session.length;

    const seen: SessionEvent[] = [];
    const batches: number[] = [];
    const watch = await database()
      .open()
      .watch(session.id, (events) => {
        seen.push(...events);
        batches.push(events.length);
      });
    const driver = new LogDriver(session);
    for (let i = 0; i < 10; i++) {
      driver.turn({ prompt: `prompt ${i}`, steps: [{ text: `answer ${i}` }] });
      if (i % 3 === 0)
        await persistence.flush(); // some flushes carry several turns, some notifications bunch up
      else void persistence.flush();
    }
    await persistence.flush();
    await until("every event arrived", () => seen.length >= session.length - before);

    expect(seen).toEqual(session.events.slice(before));
    expect(seen.map((e) => e.seq)).toEqual(session.events.slice(before).map((e) => e.seq));
    await watch.close();
    const atClose = session.length;

    new LogDriver(session).turn({ prompt: "after close", steps: [{ text: "unseen" }] });
    await persistence.flush();
    const probe: SessionEvent[] = [];
    const second = await database()
      .open()
      .watch(session.id, (events) => probe.push(...events), { fromSeq: session.length - 1 });
    await until("the probe watch caught up", () => probe.length === 1);
    await second.close();
    expect(seen).toHaveLength(atClose - before); // the closed watch got none of the last turn
  });

  test("fromSeq delivers stored events first, then follows; watches of other sessions see nothing of it", async () => {
    const writer = database().open();
    const session = twoTurnLog(newSession("replayed"));
    await writer.create(session.header, session.events.slice(0, 5));
    const other = twoTurnLog(newSession("other"));
    await writer.create(other.header, other.events.slice(0, 2));

    const watcher = database().open();
    const seen: SessionEvent[] = [];
    const unrelated: SessionEvent[] = [];
    const watch = await watcher.watch(session.id, (events) => seen.push(...events), { fromSeq: 2 });
    const watchOther = await watcher.watch(other.id, (events) => unrelated.push(...events));
    writer.append(session.id, session.events.slice(5));
    await writer.flush(session.id);
    await until("the replayed and new events arrived", () => seen.length === session.length - 2);

    expect(seen).toEqual(session.events.slice(2));
    expect(unrelated).toEqual([]);
    await watch.close();
    await watchOther.close();
  });

  test("only watched sessions' appends notify (PostgreSQL serializes notifying commits); a watch marks its session", async () => {
    const { default: pg } = await import("pg");
    const raw = new pg.Client({ connectionString: database().url });
    await raw.connect();
    const heard: string[] = [];
    raw.on("notification", (m) => heard.push(m.payload ?? ""));
    await raw.query("LISTEN keelson_events");
    try {
      const writer = database().open();
      const quiet = newSession("quiet");
      const loud = newSession("loud");
      for (const s of [quiet, loud]) await writer.create(s.header);
      const watch = await database()
        .open()
        .watch(loud.id, () => undefined);
      const [mark] = await database().query<{ id: string; watched: boolean }>(
        "SELECT id, watched_until > now() AS watched FROM keelson_sessions WHERE id = $1",
        [loud.id],
      );
      expect(mark).toEqual({ id: "loud", watched: true });
      // The unwatched append commits first; notifications arrive in commit order.
      const q = writer.attach(quiet);
      new LogDriver(quiet).turn({ prompt: "unwatched", steps: [{ text: "a" }] });
      await q.flush();
      const l = writer.attach(loud);
      new LogDriver(loud).turn({ prompt: "watched", steps: [{ text: "b" }] });
      await l.flush();
      await until("the watched append's notification", () => heard.some((p) => p.startsWith("loud ")));
      expect(heard.filter((p) => p.startsWith("quiet "))).toEqual([]);
      await watch.close();
    } finally {
      await raw.end();
    }
  });

  test("a lost notification (its writer gone between commit and NOTIFY) delays a watch one catch-up poll, no more, and is reported once", async () => {
    const writer = database().open();
    const session = newSession("unannounced");
    await writer.create(session.header);
    const seen: SessionEvent[] = [];
    const gaps: { from: number; to: number }[] = [];
    const watch = await database()
      .open()
      .watch(session.id, (events) => seen.push(...events), { onUnannounced: (gap) => gaps.push(gap) });
    // As if the append's NOTIFY never came: the writer sees no watch mark, so it sends none.
    await database().query("UPDATE keelson_sessions SET watched_until = NULL WHERE id = $1", [session.id]);
    const persistence = writer.attach(session);
    new LogDriver(session).turn({ prompt: "committed, never announced", steps: [{ text: "still delivered" }] });
    await persistence.flush();
    await until("the catch-up poll delivered the append", () => seen.length === session.length, CATCH_UP_MS * 5);
    expect(seen).toEqual(session.events);
    // One poll later the notification still has not come: reported, once (what the inspector shows).
    await until("the gap was reported", () => gaps.length > 0, CATCH_UP_MS * 5);
    await new Promise((r) => setTimeout(r, CATCH_UP_MS * 1.5));
    expect(gaps).toEqual([{ from: 0, to: session.length }]);
    await watch.close();
  });
});
