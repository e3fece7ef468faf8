// A watch starts delivering at its position, never before (found from outside: with its session
// already watched, a notification that came while a new watch was still reading where the log is
// made that watch fetch from seq 0 and deliver the whole log). EventTail over a fake pool whose
// reads a test holds, so the notification lands exactly in that window — no timing.
import { describe, expect, test } from "vitest";
import type { SessionEvent } from "../../src/session/index.js";
import type { PgClient, PgPool } from "../../src/store/postgres/connection.js";
import { EventTail } from "../../src/store/postgres/event-tail.js";
import { SESSION_STATE } from "../../src/store/postgres/queries.js";

/** A pool whose SESSION_STATE reads wait for `release`, and a LISTEN connection the test notifies through. */
function fakePool(nextSeq: number) {
  let notify: (payload: string) => void = () => {};
  const held: (() => void)[] = [];
  const client: PgClient = {
    query: async () => ({ rows: [], rowCount: 0 }) as never,
    release: () => {},
    on(event: string, listener: (arg: never) => void) {
      if (event === "notification") notify = (payload) => (listener as (m: { payload: string }) => void)({ payload });
      return client;
    },
    removeAllListeners: () => client,
  };
  const pool: PgPool = {
    async query(text: string) {
      if (text === SESSION_STATE) await new Promise<void>((resolve) => held.push(resolve));
      return { rows: [{ next_seq: String(nextSeq), lease_owner: null, live: null }], rowCount: 1 } as never;
    },
    connect: async () => client,
    end: async () => {},
  };
  return {
    pool,
    notify: (payload: string) => notify(payload),
    /** Resolves once a SESSION_STATE read waits; `release()` lets it answer. */
    async reading(): Promise<() => void> {
      while (held.length === 0) await new Promise((r) => setImmediate(r));
      return held.shift()!;
    },
  };
}

const event = (seq: number): SessionEvent => ({ seq, type: "user/message", data: {} }) as unknown as SessionEvent;

describe("a watch's first delivery", () => {
  test.each([
    ["with fromSeq", 8, [8, 9, 10, 11]],
    ["without (only what comes after it started)", undefined, [10, 11]],
  ])("%s: a notification during its start is delivered from its position", async (_name, fromSeq, expected) => {
    const fake = fakePool(10); // the log holds seqs 0–9 when the watch reads it
    const fetched: [number, number][] = [];
    const tail = new EventTail(
      async () => fake.pool,
      async (_id, from, to) => {
        fetched.push([from, to]);
        return Array.from({ length: to - from }, (_, i) => event(from + i));
      },
    );
    const seen: number[] = [];
    const watching = tail.watch("s", (events) => seen.push(...events.map((e) => e.seq)), {
      ...(fromSeq === undefined ? {} : { fromSeq }),
    });
    const release = await fake.reading(); // LISTEN is up; the watch reads where the log is
    fake.notify("s 12"); // seqs 10 and 11 committed meanwhile
    release();
    const watch = await watching;
    while (seen.at(-1) !== 11) await new Promise((r) => setImmediate(r));
    expect(seen).toEqual(expected);
    expect(fetched.every(([from]) => from >= (fromSeq ?? 10))).toBe(true);
    await watch.close();
    await tail.close();
  });
});
