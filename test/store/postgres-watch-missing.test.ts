// Issue #20 ("what a new user tripped on"): `store.watch()` on a session the store does not hold
// delivered nothing and raised nothing — a typo in an id looked like a quiet session. It is now
// a StoreError `not-found`, and the refused watch leaves nothing open (a later watch of a real
// session still works).
import { afterEach, describe, expect, test } from "vitest";
import type { SessionEvent } from "../../src/session/index.js";
import { StoreError } from "../../src/store/index.js";
import { LogDriver, newSession } from "../support/builders.js";
import { usePgDatabase } from "./postgres-harness.js";

const database = usePgDatabase();
afterEach(async () => {
  await database().closeStores();
  await database().empty();
});

describe("watch of a session the store does not hold", () => {
  test("is refused with StoreError not-found naming the id", async () => {
    const store = database().open();
    const refused = await store
      .watch("no-such-session", () => undefined)
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(refused).toBeInstanceOf(StoreError);
    expect(refused).toMatchObject({ code: "not-found", message: expect.stringContaining("no-such-session") });

    // The same store still watches a session that exists, from its first event.
    const session = newSession("exists");
    await store.create(session.header);
    const persistence = store.attach(session);
    new LogDriver(session).turn({ prompt: "hello", steps: [{ text: "hi" }] });
    await persistence.flush();
    const seen: SessionEvent[] = [];
    const delivered = new Promise<void>((done) => {
      void store.watch(
        session.id,
        (events) => {
          seen.push(...events);
          if (seen.length === session.length) done();
        },
        { fromSeq: 0 },
      );
    });
    await delivered;
    expect(seen.map((e) => e.seq)).toEqual(session.events.map((e) => e.seq));
  });
});
