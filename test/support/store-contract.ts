// The SessionStore contract (src/store/types.ts) as a suite every store runs: JSONL now, SQLite
// and PostgreSQL later. Nothing here knows how a store keeps its data; a store's own test file
// supplies a harness and adds the tests that are about its format.
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import type { Session } from "../../src/session/index.js";
import type { SessionStore } from "../../src/store/index.js";
import { newSession, twoTurnLog } from "./builders.js";
import { buildLog, logOpsArb } from "./random-log.js";
import { describeWriterContract } from "./store-contract-writers.js";
import { expectStoreError, sessionHeader } from "./store-expect.js";

export interface StoreHarness {
  /** The store under test, over empty backing storage. */
  readonly store: SessionStore;
  /**
   * A new, independent store over the same backing storage — another writer, as another
   * process would be. Each call opens a fresh one.
   */
  readonly openSecond: () => SessionStore;
  /** Moves session `id`'s last-written time back to `ms` (so a later write visibly advances it), where the backing storage can. */
  readonly backdate?: (id: string, ms: number) => Promise<void>;
  /** Closes every store the harness opened and removes the backing storage. */
  readonly cleanup: () => Promise<void>;
}

export type StoreHarnessFactory = () => Promise<StoreHarness>;

/** Stores `session` in `store`: the first `seedLength` events at create, the rest in batches of `batch`. */
export async function storeSession(store: SessionStore, session: Session, seedLength = 0, batch = 3): Promise<void> {
  const events = session.events;
  await store.create(session.header, events.slice(0, seedLength));
  for (let i = seedLength; i < events.length; i += batch) store.append(session.id, events.slice(i, i + batch));
  await store.flush(session.id);
}

export function describeSessionStoreContract(name: string, makeStore: StoreHarnessFactory): void {
  describe(`${name} meets the SessionStore contract`, () => {
    let h: StoreHarness;
    beforeEach(async () => {
      h = await makeStore();
    });
    afterEach(async () => {
      await h.cleanup();
    });

    describe("round trip", () => {
      test("a session created with a seed, appended in batches and flushed loads back with equal header and events", async () => {
        const session = twoTurnLog(newSession("round-trip"));
        await storeSession(h.store, session, 4, 5);
        await h.store.release(session.id);

        const loaded = await h.openSecond().load(session.id);
        expect(loaded.session.header).toEqual(session.header);
        expect(loaded.session.events).toEqual(session.events);
        expect(loaded.session.events.map((e) => e.seq)).toEqual(session.events.map((_, i) => i));
        expect(loaded).toMatchObject({ repaired: [], droppedBytes: 0, needsRepair: false });
      });

      test("random logs round-trip through create, batched appends and flush unchanged", async () => {
        const samples = fc.sample(logOpsArb, { numRuns: 30, seed: 23 });
        const sessions = samples.map((ops, i) => buildLog(ops, newSession(`random-${i}`)));
        for (const [i, session] of sessions.entries()) {
          await h.store.create(session.header, session.events.slice(0, i % 7));
          for (let at = i % 7, size = 1 + (i % 4); at < session.length; at += size)
            h.store.append(session.id, session.events.slice(at, at + size));
        }
        await h.store.flush();
        await h.store.close();

        const reader = h.openSecond();
        for (const session of sessions) {
          const loaded = await reader.load(session.id, { readOnly: true });
          expect(loaded.session.header, session.id).toEqual(session.header);
          expect(loaded.session.events, session.id).toEqual(session.events);
        }
      });

      test("every optional header field round-trips, and an unseeded session loads empty", async () => {
        const header = sessionHeader("child", 1_700_000_000_500, { parentSession: "parent", seedLength: 0 });
        await h.store.create(header);
        await h.store.release(header.id);

        const loaded = await h.openSecond().load(header.id);
        expect(loaded.session.header).toEqual(header);
        expect(loaded.session.length).toBe(0);
      });

      test("flushed events are visible to a read-only load while the writer still holds the session", async () => {
        const session = twoTurnLog(newSession("visible"));
        await storeSession(h.store, session, 2);

        const loaded = await h.openSecond().load(session.id, { readOnly: true });
        expect(loaded.session.events).toEqual(session.events);
      });

      test("attach buffers every append of a live session; after its flush another store loads the same log", async () => {
        const session = newSession("live");
        await h.store.create(session.header);
        const persistence = h.store.attach(session);
        twoTurnLog(session);
        await persistence.flush();

        const loaded = await h.openSecond().load(session.id, { readOnly: true });
        expect(loaded.session.events).toEqual(session.events);
      });

      test("after attach is disposed, the session's appends no longer reach the store", async () => {
        const session = twoTurnLog(newSession("unhooked"));
        await h.store.create(session.header, session.events);
        h.store.attach(session).dispose();
        session.append("turn/start", { turn: session.lastTurn + 1, trigger: "send" });
        await h.store.flush(session.id);

        expect((await h.openSecond().load(session.id, { readOnly: true })).session.length).toBe(session.length - 1);
      });

      test("attach's flush fails with 'write-failed' once the store has refused one of the session's appends", async () => {
        const session = newSession("refused");
        const persistence = h.store.attach(session); // never created: every append is refused
        twoTurnLog(session);

        const error = await expectStoreError(() => persistence.flush(), "write-failed");
        expect(error.message).toContain(session.id);
        await expectStoreError(() => h.store.load(session.id, { readOnly: true }), "not-found");
      });
    });

    describe("refusals", () => {
      test("create refuses an existing id with 'exists' and leaves the stored session unchanged", async () => {
        const session = twoTurnLog(newSession("taken"));
        await storeSession(h.store, session, 3);
        const impostor = sessionHeader("taken", 42, { cwd: "/elsewhere" });

        await expectStoreError(() => h.store.create(impostor), "exists");
        await h.store.release(session.id);
        await expectStoreError(() => h.store.create(impostor), "exists");
        await expectStoreError(() => h.openSecond().create(impostor), "exists");

        const loaded = await h.openSecond().load(session.id);
        expect(loaded.session.header).toEqual(session.header);
        expect(loaded.session.events).toEqual(session.events);
      });

      test("an append batch with a seq gap is rejected whole with 'seq-gap' and none of it is stored", async () => {
        const session = twoTurnLog(newSession("gap"));
        const events = session.events;
        await h.store.create(session.header, events.slice(0, 4));

        await expectStoreError(() => h.store.append(session.id, [events[4]!, events[6]!]), "seq-gap");
        await expectStoreError(() => h.store.append(session.id, [events[5]!]), "seq-gap");
        h.store.append(session.id, events.slice(4));
        await h.store.release(session.id);

        expect((await h.openSecond().load(session.id)).session.events).toEqual(events);
      });

      test("an append batch repeating a seq, within the batch or already stored, is rejected whole with 'seq-gap'", async () => {
        const session = twoTurnLog(newSession("dup"));
        const events = session.events;
        await h.store.create(session.header, events.slice(0, 4));

        await expectStoreError(() => h.store.append(session.id, [events[4]!, events[4]!]), "seq-gap");
        await expectStoreError(() => h.store.append(session.id, [events[3]!, events[4]!]), "seq-gap");
        h.store.append(session.id, events.slice(4));
        await h.store.release(session.id);

        expect((await h.openSecond().load(session.id)).session.events).toEqual(events);
      });

      test("append to a session this store has not opened for writing fails with 'not-open'", async () => {
        const session = twoTurnLog(newSession("closed-for-writing"));
        const next = session.events.slice(3, 4);
        await expectStoreError(() => h.store.append("never-created", next), "not-open");

        await h.store.create(session.header, session.events.slice(0, 3));
        await h.store.release(session.id);
        await expectStoreError(() => h.store.append(session.id, next), "not-open");

        await h.store.load(session.id, { readOnly: true });
        await expectStoreError(() => h.store.append(session.id, next), "not-open");
      });

      test("load of an unknown id fails with 'not-found'", async () => {
        await expectStoreError(() => h.store.load("no-such-session"), "not-found");
        await expectStoreError(() => h.store.load("no-such-session", { readOnly: true }), "not-found");
      });

      test("load refuses ids that are not safe session ids with 'invalid-id'", async () => {
        for (const id of ["../x", "", "a/b", ".hidden", "x".repeat(129)]) {
          await expectStoreError(() => h.store.load(id), "invalid-id");
          await expectStoreError(() => h.store.load(id, { readOnly: true }), "invalid-id");
        }
      });

      test("create refuses a header whose id is not a safe session id with 'invalid-id'", async () => {
        for (const id of ["../x", ""]) await expectStoreError(() => h.store.create(sessionHeader(id)), "invalid-id");
        expect(await h.store.list()).toEqual([]);
      });
    });

    describe("list", () => {
      test("list of an empty store is empty", async () => {
        expect(await h.store.list()).toEqual([]);
      });

      test("list returns a summary of every stored session, oldest first", async () => {
        await h.store.create(sessionHeader("b-middle", 200));
        await h.store.create(sessionHeader("a-newest", 300, { parentSession: "b-middle", seedLength: 0 }));
        await h.store.create({ version: 1, id: "c-oldest", createdAt: 100 });
        await h.store.release("c-oldest");

        const listed = await h.store.list();
        expect(listed).toEqual([
          { id: "c-oldest", createdAt: 100, updatedAt: expect.any(Number) },
          { id: "b-middle", createdAt: 200, updatedAt: expect.any(Number), cwd: "/work" },
          { id: "a-newest", createdAt: 300, updatedAt: expect.any(Number), cwd: "/work", parentSession: "b-middle" },
        ]);
        expect(await h.openSecond().list()).toEqual(listed);
      });

      test("list reports when each log was last written (updatedAt moves on append)", async () => {
        await h.store.create(sessionHeader("touched", 100));
        await h.store.release("touched");
        const [before] = await h.store.list();
        const { session } = await h.store.load("touched");
        twoTurnLog(session);
        // The clock of the file system, not of this test: move the mtime back to see it advance.
        await h.backdate?.("touched", before!.updatedAt - 60_000);
        const [backdated] = await h.store.list();
        await h.store.append("touched", session.events);
        await h.store.flush("touched");
        const [after] = await h.store.list();
        expect(after!.updatedAt).toBeGreaterThanOrEqual(backdated!.updatedAt);
        if (h.backdate !== undefined) expect(after!.updatedAt).toBeGreaterThan(backdated!.updatedAt);
      });
    });

    describe("close", () => {
      test("close flushes buffered events of every session and releases every lock", async () => {
        const one = twoTurnLog(newSession("one"));
        const two = twoTurnLog(newSession("two"));
        for (const s of [one, two]) {
          await h.store.create(s.header, s.events.slice(0, 1));
          h.store.append(s.id, s.events.slice(1));
        }
        await h.store.close();

        const next = h.openSecond();
        expect((await next.load(one.id)).session.events).toEqual(one.events);
        expect((await next.load(two.id)).session.events).toEqual(two.events);
      });

      test("after close every operation fails with 'closed', and close again is harmless", async () => {
        const session = twoTurnLog(newSession("after-close"));
        await storeSession(h.store, session, 2);
        await h.store.close();

        await expectStoreError(() => h.store.create(sessionHeader("fresh")), "closed");
        await expectStoreError(() => h.store.append(session.id, []), "closed");
        await expectStoreError(() => h.store.flush(), "closed");
        await expectStoreError(() => h.store.load(session.id, { readOnly: true }), "closed");
        await expectStoreError(() => h.store.list(), "closed");
        await expect(h.store.close()).resolves.toBeUndefined();
      });
    });

    describeWriterContract(() => h);
  });
}
