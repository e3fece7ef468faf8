// The SessionStore contract, part two: one writer per session, read-only loads, crash repair on
// load, and the known log. Registered by `describeSessionStoreContract` (store-contract.ts).
import { describe, expect, test } from "vitest";
import { Session } from "../../src/session/index.js";
import type { SessionStore } from "../../src/store/index.js";
import { LogDriver, newSession, twoTurnLog } from "./builders.js";
import { type StoreHarness, storeSession } from "./store-contract.js";
import { crashedLog, expectedClosers, expectStoreError, typeAndData } from "./store-expect.js";

export function describeWriterContract(harness: () => StoreHarness): void {
  describe("single writer", () => {
    test("a second store can neither load writable nor create a session the first holds ('locked')", async () => {
      const h = harness();
      const session = twoTurnLog(newSession("held"));
      await h.store.create(session.header, session.events);
      const second = h.openSecond();

      await expectStoreError(() => second.load(session.id), "locked");
      await expectStoreError(() => second.create(session.header), "locked");
    });

    test("a loaded writer holds the session as a creator does ('locked' for a third store)", async () => {
      const h = harness();
      const session = twoTurnLog(newSession("held-by-load"));
      await h.store.create(session.header, session.events);
      await h.store.release(session.id);

      await h.openSecond().load(session.id);
      await expectStoreError(() => h.openSecond().load(session.id), "locked");
      await expectStoreError(() => h.store.load(session.id), "locked");
    });

    test("after the holder releases a session, a second store loads it writable and can append", async () => {
      const h = harness();
      const session = twoTurnLog(newSession("handed-over"));
      const firstTurn = session.events.findIndex((e) => e.type === "turn/end") + 1;
      await h.store.create(session.header, session.events.slice(0, firstTurn));
      await h.store.release(session.id);

      const second = h.openSecond();
      await second.load(session.id);
      second.append(session.id, session.events.slice(firstTurn));
      await second.flush(session.id);
      await expectStoreError(() => h.store.load(session.id), "locked");
      await second.release(session.id);

      expect((await h.store.load(session.id)).session.events).toEqual(session.events);
    });

    test("a store refuses to load writable a session it already holds ('already-open')", async () => {
      const h = harness();
      const session = twoTurnLog(newSession("twice"));
      await h.store.create(session.header, session.events);

      await expectStoreError(() => h.store.load(session.id), "already-open");
    });

    test("opens of one id at once in one store: exactly one writer; the others 'already-open' (never two writers of one log)", async () => {
      const h = harness();
      const session = twoTurnLog(newSession("racing"));
      await h.store.create(session.header, session.events);
      await h.store.release(session.id);
      const loads = await Promise.allSettled([h.store.load(session.id), h.store.load(session.id)]);
      expect(loads.map((r) => r.status).sort()).toEqual(["fulfilled", "rejected"]);
      expect((loads.find((r) => r.status === "rejected") as PromiseRejectedResult).reason).toMatchObject({
        code: "already-open",
      });
      // A create and a writable load of a new id at once: the load never gets a second writer of it.
      const fresh = newSession("racing-new");
      const [created, loaded] = await Promise.allSettled([h.store.create(fresh.header), h.store.load(fresh.id)]);
      expect(created.status).toBe("fulfilled");
      expect((loaded as PromiseRejectedResult).reason).toMatchObject({ code: "already-open" });
      // The one writer appends; the log holds what it wrote.
      h.store.append(fresh.id, twoTurnLog(newSession("racing-new")).events.slice(0, 2));
      await h.store.flush(fresh.id);
      await h.store.release(fresh.id);
      expect((await h.store.load(fresh.id, { readOnly: true })).session.length).toBe(2);
      // Reserved only while it opens: once released, the id loads again.
      expect((await h.store.load(session.id, { readOnly: true })).session.length).toBe(session.length);
    });

    test("a writable load while the same store releases the id waits for the release: one writer, which keeps the session", async () => {
      const h = harness();
      const session = twoTurnLog(newSession("release-race"));
      const firstTurn = session.events.findIndex((e) => e.type === "turn/end") + 1;
      await h.store.create(session.header, session.events.slice(0, firstTurn));
      const [released, loaded] = await Promise.allSettled([h.store.release(session.id), h.store.load(session.id)]);
      expect([released.status, loaded.status]).toEqual(["fulfilled", "fulfilled"]);
      // The reopened writer holds the session: its appends are durable, and no other store gets it.
      h.store.append(session.id, session.events.slice(firstTurn));
      await h.store.flush(session.id);
      await expectStoreError(() => h.openSecond().load(session.id), "locked");
      await h.store.release(session.id);
      expect((await h.openSecond().load(session.id, { readOnly: true })).session.events).toEqual(session.events);
    });

    test("close while a create or load is opening: it ends first and is released with the rest (the ids are free after)", async () => {
      const h = harness();
      const stored = twoTurnLog(newSession("closing-load"));
      await h.store.create(stored.header, stored.events);
      await h.store.release(stored.id);
      const fresh = newSession("closing-create");
      const held = newSession("closing-release");
      await h.store.create(held.header);
      const opening = Promise.allSettled([h.store.create(fresh.header), h.store.load(stored.id)]);
      const releasing = h.store.release(held.id); // under way when close starts: let go before close resolves
      await h.store.close();
      await expect(h.openSecond().load(held.id)).resolves.toBeDefined();
      await releasing;
      expect((await opening).map((r) => r.status)).toEqual(["fulfilled", "fulfilled"]);
      await expectStoreError(() => h.store.load(stored.id), "closed");
      const second = h.openSecond();
      expect((await second.load(stored.id)).session.length).toBe(stored.length);
      expect((await second.load(fresh.id)).session.length).toBe(0);
    });

    test("a read-only load by the holding store sees its buffered events", async () => {
      const h = harness();
      const session = twoTurnLog(newSession("own-buffer"));
      await h.store.create(session.header, session.events.slice(0, 3));
      h.store.append(session.id, session.events.slice(3));

      const loaded = await h.store.load(session.id, { readOnly: true });
      expect(loaded.session.events).toEqual(session.events);
    });
  });

  describe("read-only load", () => {
    test("a read-only load works while another store holds the lock, and reports but does not repair an open turn", async () => {
      const h = harness();
      const crashed = crashedLog("inspect-me");
      await h.store.create(crashed.header, crashed.events);

      const loaded = await h.openSecond().load(crashed.id, { readOnly: true });
      expect(loaded.session.events).toEqual(crashed.events);
      expect(loaded.session.openTurn).toBe(crashed.openTurn);
      expect(loaded).toMatchObject({ repaired: [], needsRepair: true, droppedBytes: 0 });

      await h.store.release(crashed.id);
      const again = await h.openSecond().load(crashed.id, { readOnly: true });
      expect(again.session.events).toEqual(crashed.events);
    });

    test("a read-only load takes no lock: a writer can load the session afterwards", async () => {
      const h = harness();
      const session = twoTurnLog(newSession("peeked"));
      await h.store.create(session.header, session.events);
      await h.store.release(session.id);

      await h.openSecond().load(session.id, { readOnly: true });
      await expect(h.openSecond().load(session.id)).resolves.toMatchObject({ repaired: [] });
    });
  });

  describe("crash repair", () => {
    test("a writable load closes an open final turn with the closers repair owes it", async () => {
      const h = harness();
      const crashed = crashedLog("crashed");
      await h.store.create(crashed.header, crashed.events);
      await h.store.release(crashed.id);

      const loaded = await h.openSecond().load(crashed.id);
      expect(typeAndData(loaded.repaired)).toEqual(expectedClosers(crashed.header, crashed.events));
      expect(loaded.repaired.at(-1)?.data).toEqual({ turn: crashed.openTurn, reason: { kind: "interrupted" } });
      expect(loaded.session.events).toEqual([...crashed.events, ...loaded.repaired]);
      expect(loaded.session.openTurn).toBeNull();
      expect(loaded.needsRepair).toBe(false);
    });

    test("repair closers are durable: a fresh store sees them exactly once, and a further load adds nothing", async () => {
      const h = harness();
      const crashed = crashedLog("repaired-once");
      await h.store.create(crashed.header, crashed.events);
      await h.store.release(crashed.id);

      const repairing = h.openSecond();
      const first = await repairing.load(crashed.id);
      expect(first.repaired.length).toBeGreaterThan(0);
      await repairing.close();

      const secondStore = h.openSecond();
      const second = await secondStore.load(crashed.id);
      expect(second.repaired).toEqual([]);
      expect(second.session.events).toEqual(first.session.events);
      await secondStore.close();

      const third = await h.openSecond().load(crashed.id);
      expect(third.repaired).toEqual([]);
      expect(third.session.length).toBe(crashed.length + first.repaired.length);
    });

    test("the repaired log continues: appends after the closers round-trip", async () => {
      const h = harness();
      const crashed = crashedLog("resumed");
      await h.store.create(crashed.header, crashed.events);
      await h.store.release(crashed.id);

      const writer = h.openSecond();
      const { session } = await writer.load(crashed.id);
      const turn = session.lastTurn + 1;
      const added = [
        session.append("turn/start", { turn, trigger: "send" }),
        session.append("turn/end", { turn, reason: { kind: "completed" } }),
      ];
      writer.append(session.id, added);
      await writer.close();

      expect((await h.openSecond().load(crashed.id)).session.events).toEqual(session.events);
    });
  });

  // The known log (src/store/session-writers.ts): the session whose events are exactly the log
  // written so far. A store serves it again without reading the log, so a load's events are then
  // that session's own objects; any other log is read again.
  describe("the known log", () => {
    /** Attaches `session` to `store`, runs one more turn on it, flushes, detaches and releases. */
    async function turnThrough(store: SessionStore, session: Session): Promise<void> {
      const persistence = store.attach(session);
      new LogDriver(session).turn({ prompt: "one more", steps: [{ text: "done" }] });
      await persistence.flush();
      persistence.dispose();
      await store.release(session.id);
    }

    /** Whether a read-only load by `store` returns `session`'s own last event object (no read). */
    async function servedWithoutRead(store: SessionStore, session: Session): Promise<boolean> {
      const loaded = (await store.load(session.id, { readOnly: true })).session;
      expect(loaded.events).toEqual(session.events);
      return loaded.eventAt(session.length - 1) === session.eventAt(session.length - 1);
    }

    test("a session attached after its create, holding the seed it was created with, is the known log", async () => {
      const h = harness();
      const session = twoTurnLog(newSession("known-after-create"));
      await h.store.create(session.header, session.events);
      await turnThrough(h.store, session);

      expect(await servedWithoutRead(h.store, session)).toBe(true);
    });

    test("a session attached after a writable load, holding exactly the loaded log, is the known log", async () => {
      const h = harness();
      const stored = twoTurnLog(newSession("known-after-load"));
      await storeSession(h.store, stored);
      await h.store.release(stored.id);
      const store = h.openSecond();
      const { session: loaded } = await store.load(stored.id);
      const live = Session.fromSession(loaded, loaded.header); // the same events, another Session
      await turnThrough(store, live);

      expect(await servedWithoutRead(store, live)).toBe(true);
    });

    test("a session holding an equal copy of the log is not the known log: its appends are stored, and read again", async () => {
      const h = harness();
      const session = twoTurnLog(newSession("equal-copy"));
      await h.store.create(session.header, session.events);
      const copy = Session.fromLog(session.header, JSON.parse(JSON.stringify(session.events)));
      await turnThrough(h.store, copy);

      expect(await servedWithoutRead(h.store, copy)).toBe(false);
    });

    test("a session holding the log's events under another header is not the known log", async () => {
      const h = harness();
      const session = twoTurnLog(newSession("other-header"));
      await h.store.create(session.header, session.events);
      const other = Session.fromSession(session, { ...session.header, cwd: "/elsewhere" });
      await turnThrough(h.store, other);

      const loaded = (await h.store.load(other.id, { readOnly: true })).session;
      expect(loaded.header).toEqual(session.header);
      expect(await servedWithoutRead(h.store, other)).toBe(false);
    });
  });
}
