// W6 part 1 — append throughput: N sessions each appending a step's worth of events and
// flushing (one durable commit per step, as the loop does) as fast as they can, all at once.
// Three writers of the same rows, measured in the same run:
//   - the floor: a plain `BEGIN; INSERT … SELECT FROM unnest(…); COMMIT` per batch through `pg`
//     into a bare table with the events' primary key — what PostgreSQL does with no guard;
//   - `PostgresSessionStore`: `append` + `flush` (the guarded transaction: log position, lease
//     owner / epoch / expiry, insert, notify);
//   - `JsonlSessionStore` in a temp dir (write + fdatasync per flush).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { Session, type SessionEvent, type SessionMeta } from "../../src/session/index.js";
import { JsonlSessionStore, type SessionStore } from "../../src/store/index.js";
import { PostgresSessionStore } from "../../src/store/postgres/index.js";
import { buildLog } from "../logs.js";

/** Events per flush: a tool step logs about five (step/start, assistant/message, tool/call, tool/result, step/end). */
export const BATCH = 5;

export interface AppendRow {
  readonly writer: "plain INSERT (floor)" | "PostgresSessionStore" | "JsonlSessionStore";
  readonly sessions: number;
  readonly flushes: number;
  readonly seconds: number;
  readonly flushesPerSecond: number;
  readonly eventsPerSecond: number;
  /** CPU of this (client) process per flush, ms. */
  readonly clientCpuMsPerFlush: number;
}

/** A template log long enough for every session's appends (the same events, each session its own seqs). */
export function templateLog(events: number): Session {
  return buildLog({ events }, "w6-template");
}

const headerOf = (template: Session, id: string): SessionMeta => ({ ...template.header, id });

/** Runs `perSession` flushes in each of `sessions` concurrent loops; returns wall seconds and client CPU ms. */
async function timed(sessions: number, run: (s: number) => Promise<void>): Promise<{ seconds: number; cpuMs: number }> {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(Array.from({ length: sessions }, (_, s) => run(s)));
  const cpu = process.cpuUsage(c0);
  return { seconds: (performance.now() - t0) / 1000, cpuMs: (cpu.user + cpu.system) / 1000 };
}

function row(
  writer: AppendRow["writer"],
  sessions: number,
  flushes: number,
  t: { seconds: number; cpuMs: number },
): AppendRow {
  return {
    writer,
    sessions,
    flushes,
    seconds: t.seconds,
    flushesPerSecond: flushes / t.seconds,
    eventsPerSecond: (flushes * BATCH) / t.seconds,
    clientCpuMsPerFlush: t.cpuMs / flushes,
  };
}

/** The store rows: `perSession` flushes of BATCH events in each of `sessions` sessions. */
export async function storeAppends(
  writer: "PostgresSessionStore" | "JsonlSessionStore",
  store: SessionStore,
  template: Session,
  sessions: number,
  perSession: number,
  tag: string,
): Promise<AppendRow> {
  const events = template.events;
  const ids = Array.from({ length: sessions }, (_, s) => `w6-${tag}-${sessions}-${s}`);
  for (const id of ids) await store.create(headerOf(template, id));
  const t = await timed(sessions, async (s) => {
    const id = ids[s]!;
    for (let f = 0; f < perSession; f++) {
      store.append(id, events.slice(f * BATCH, (f + 1) * BATCH) as SessionEvent[]);
      await store.flush(id);
    }
  });
  for (const id of ids) await store.release(id);
  return row(writer, sessions, sessions * perSession, t);
}

/** The floor: the same rows through a plain INSERT per batch, one pool connection per session. */
export async function plainInserts(
  url: string,
  template: Session,
  sessions: number,
  perSession: number,
  tag: string,
): Promise<AppendRow> {
  const { default: pg } = await import("pg");
  const pool = new pg.Pool({ connectionString: url, max: sessions });
  try {
    await pool.query(
      "CREATE TABLE IF NOT EXISTS w6_floor (session_id text NOT NULL, seq bigint NOT NULL, line text NOT NULL, PRIMARY KEY (session_id, seq))",
    );
    const lines = template.events.map((e) => JSON.stringify(e));
    const t = await timed(sessions, async (s) => {
      const id = `w6-${tag}-${sessions}-${s}`;
      const client = await pool.connect();
      try {
        for (let f = 0; f < perSession; f++) {
          const seqs = Array.from({ length: BATCH }, (_, i) => f * BATCH + i);
          await client.query("BEGIN");
          await client.query(
            "INSERT INTO w6_floor (session_id, seq, line) SELECT $1, s, l FROM unnest($2::bigint[], $3::text[]) AS t(s, l)",
            [id, seqs, seqs.map((q) => lines[q]!)],
          );
          await client.query("COMMIT");
        }
      } finally {
        client.release();
      }
    });
    return row("plain INSERT (floor)", sessions, sessions * perSession, t);
  } finally {
    await pool.end();
  }
}

/** One append-throughput measurement per writer at each concurrency, interleaved writer by writer. */
export async function appendThroughput(
  url: string,
  concurrency: readonly number[],
  flushesPerConfig: number,
): Promise<AppendRow[]> {
  const perSessionMax = Math.max(...concurrency.map((n) => Math.ceil(flushesPerConfig / n)));
  const template = templateLog(perSessionMax * BATCH + 10);
  const rows: AppendRow[] = [];
  const dir = await mkdtemp(join(tmpdir(), "keelson-w6-"));
  const pgStore = new PostgresSessionStore({ url });
  const jsonl = new JsonlSessionStore({ root: dir, cacheSessions: 0 });
  try {
    for (const n of concurrency) {
      const perSession = Math.ceil(flushesPerConfig / n);
      rows.push(await plainInserts(url, template, n, perSession, "floor"));
      rows.push(await storeAppends("PostgresSessionStore", pgStore, template, n, perSession, "pg"));
      rows.push(await storeAppends("JsonlSessionStore", jsonl, template, n, perSession, "jsonl"));
    }
  } finally {
    await pgStore.close();
    await jsonl.close();
    await rm(dir, { recursive: true, force: true });
  }
  return rows;
}

/** Creates `count` sessions through the store (header only), `parallel` at a time. */
export async function createSessions(url: string, count: number, parallel: number): Promise<void> {
  const store = new PostgresSessionStore({ url });
  const template = Session.create({ id: "w6-list-template", cwd: "/srv/app" });
  try {
    let next = 0;
    await Promise.all(
      Array.from({ length: parallel }, async () => {
        for (let i = next++; i < count; i = next++) {
          const id = `w6-list-${String(i).padStart(5, "0")}`;
          await store.create(headerOf(template, id));
          await store.release(id);
        }
      }),
    );
  } finally {
    await store.close();
  }
}
