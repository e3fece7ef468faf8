// Live tail of stored sessions over LISTEN/NOTIFY. An append to a watched session notifies
// `keelson_events` with `<id> <next_seq>` right after its commit, by a statement of its own
// (guarded-append.ts, decision 0036; a watch marks its session watched for WATCH_TTL_MS and
// renews the mark every third of that; unwatched appends do not notify, since PostgreSQL
// serializes notifying transactions); one dedicated connection per store LISTENs,
// and each watcher fetches the rows between what it delivered and the notified next_seq. A
// notification lost with its writer (gone between commit and NOTIFY) delays a watcher at most
// one catch-up poll (every CATCH_UP_MS, one statement for every watched session). A
// watcher's fetches are chained, so it delivers every newly committed event in seq order,
// exactly once, however notifications bunch up. The connection is opened with the first watcher
// and destroyed with the last.
import type { SessionEvent } from "../../session/index.js";
import { StoreError } from "../types.js";
import type { PgClient, PgPool } from "./connection.js";
import { NEXT_SEQS, SESSION_STATE, WATCHED } from "./queries.js";

/** How long a watch's mark on its session lasts without renewal (renewed every third of it). */
export const WATCH_TTL_MS = 30_000;
/** How often open watches read their sessions' next seq, in case a notification was lost. */
export const CATCH_UP_MS = 2_000;

export interface WatchOptions {
  /** Deliver from this seq on (events already stored included); default: only events committed after the watch starts. */
  readonly fromSeq?: number;
  /** Called when the tail fails (a fetch, the LISTEN connection, or a throwing `onEvents`); the watch stays open unless the connection is gone. */
  readonly onError?: (error: unknown) => void;
  /**
   * Called when a catch-up poll delivered events whose notification had still not come one poll
   * later: seqs `from` to `to - 1`. Once is a writer lost between commit and NOTIFY; every time is
   * a connection that cannot LISTEN (a pooler in transaction mode, such as PgBouncer).
   */
  readonly onUnannounced?: (gap: { readonly from: number; readonly to: number }) => void;
}

/** A running watch; `close` stops deliveries (one already being delivered completes). */
export interface SessionWatch {
  close(): Promise<void>;
}

/** Reads committed events of session `id` with seq in [from, to). */
export type FetchEvents = (id: string, from: number, to: number) => Promise<SessionEvent[]>;

interface Watcher {
  readonly id: string;
  readonly onEvents: (events: readonly SessionEvent[]) => void;
  readonly onError: (error: unknown) => void;
  readonly onUnannounced: (gap: { readonly from: number; readonly to: number }) => void;
  delivered: number;
  /** The highest next seq a notification (or the watch's first read, or a report) accounted for. */
  announced: number;
  /** Events a catch-up poll found unannounced, [from, to); reported if still unannounced at the next poll. */
  unannounced: { from: number; to: number } | undefined;
  chain: Promise<void>;
  closed: boolean;
}

export class EventTail {
  readonly #pool: () => Promise<PgPool>;
  readonly #fetch: FetchEvents;
  readonly #watchers = new Set<Watcher>();
  #client: Promise<PgClient> | undefined;
  #renewal: NodeJS.Timeout | undefined;
  #catchUp: NodeJS.Timeout | undefined;
  #catchingUp = false;

  constructor(pool: () => Promise<PgPool>, fetch: FetchEvents) {
    this.#pool = pool;
    this.#fetch = fetch;
  }

  async watch(
    id: string,
    onEvents: (events: readonly SessionEvent[]) => void,
    options: WatchOptions = {},
  ): Promise<SessionWatch> {
    // Its pulls wait until its position is known: a notification for the session (another watch
    // of it is listening) arriving before that must not fetch from seq 0 (found from outside).
    let started!: () => void;
    const watcher: Watcher = {
      id,
      onEvents,
      onError: options.onError ?? (() => undefined),
      onUnannounced: options.onUnannounced ?? (() => undefined),
      delivered: 0,
      announced: 0,
      unannounced: undefined,
      chain: new Promise<void>((resolve) => {
        started = resolve;
      }),
      closed: false,
    };
    this.#watchers.add(watcher);
    try {
      // Marked watched, then listening, then reading where the log is: an append committed after
      // the read notifies (it sees the mark), one committed before it is in the read.
      await (await this.#pool()).query(WATCHED, [id, WATCH_TTL_MS]);
      this.#renewing();
      await this.#listening();
      const { rows } = await (await this.#pool()).query<{ next_seq: string }>(SESSION_STATE, [id]);
      // A watch on a session the store does not hold would wait forever in silence: refuse it.
      if (rows[0] === undefined) throw new StoreError("not-found", `no session ${id}: there is nothing to watch`);
      const stored = Number(rows[0].next_seq);
      watcher.delivered = options.fromSeq ?? stored;
      watcher.announced = Math.max(watcher.announced, stored); // a notification may have come first
      if (stored > watcher.delivered) this.#pull(watcher, stored);
    } catch (e) {
      await this.#remove(watcher);
      throw e;
    } finally {
      started(); // the pulls queued meanwhile run now, from the watch's position (or, closed, not at all)
    }
    return { close: () => this.#remove(watcher) };
  }

  /** While any watch is open: renews the watched marks, and polls for lost notifications (unref'd timers). */
  #renewing(): void {
    if (this.#renewal !== undefined) return;
    this.#renewal = setInterval(() => {
      const ids = [...new Set([...this.#watchers].map((w) => w.id))];
      void this.#pool()
        .then((pool) => Promise.all(ids.map((id) => pool.query(WATCHED, [id, WATCH_TTL_MS]))))
        .catch((error: unknown) => {
          for (const watcher of this.#watchers) watcher.onError(error);
        });
    }, WATCH_TTL_MS / 3);
    this.#renewal.unref();
    this.#catchUp = setInterval(() => this.#catchUpPoll(), CATCH_UP_MS);
    this.#catchUp.unref();
  }

  /** Reads every watched session's next seq and pulls what a notification should have announced. */
  #catchUpPoll(): void {
    if (this.#catchingUp || this.#watchers.size === 0) return;
    this.#catchingUp = true;
    const ids = [...new Set([...this.#watchers].map((w) => w.id))];
    void this.#pool()
      .then((pool) => pool.query<{ id: string; next_seq: string }>(NEXT_SEQS, [ids]))
      .then(({ rows }) => {
        for (const row of rows) this.#caughtUp(row.id, Number(row.next_seq));
      })
      .catch((error: unknown) => {
        for (const watcher of this.#watchers) watcher.onError(error);
      })
      .finally(() => {
        this.#catchingUp = false;
      });
  }

  #stopTimers(): void {
    clearInterval(this.#renewal);
    clearInterval(this.#catchUp);
    this.#renewal = undefined;
    this.#catchUp = undefined;
  }

  /** Stops every watch and the LISTEN connection. */
  async close(): Promise<void> {
    for (const watcher of [...this.#watchers]) await this.#remove(watcher);
  }

  #listening(): Promise<PgClient> {
    this.#client ??= (async () => {
      const client = await (await this.#pool()).connect();
      client.on("notification", (message: { payload?: string }) => this.#notified(message.payload ?? ""));
      client.on("error", (error: Error) => this.#lost(error));
      try {
        await client.query("LISTEN keelson_events");
      } catch (e) {
        client.release(true);
        throw e;
      }
      return client;
    })();
    const pending = this.#client;
    pending.catch(() => {
      if (this.#client === pending) this.#client = undefined;
    });
    return pending;
  }

  #notified(payload: string): void {
    const space = payload.lastIndexOf(" ");
    const id = payload.slice(0, space);
    const next = Number(payload.slice(space + 1));
    if (space < 0 || !Number.isSafeInteger(next)) return;
    for (const watcher of this.#watchers)
      if (watcher.id === id) {
        watcher.announced = Math.max(watcher.announced, next);
        if (watcher.unannounced !== undefined && next >= watcher.unannounced.to) watcher.unannounced = undefined;
      }
    this.#advance(id, next);
  }

  /** A catch-up poll read `next` for session `id`: what no notification announced is pulled, and reported one poll later if none has come. */
  #caughtUp(id: string, next: number): void {
    for (const watcher of this.#watchers) {
      if (watcher.id !== id) continue;
      const gap = watcher.unannounced;
      watcher.unannounced = undefined;
      if (gap !== undefined && watcher.announced < gap.to) {
        watcher.announced = gap.to; // reported once
        watcher.onUnannounced(gap);
      }
      if (next > watcher.announced) watcher.unannounced = { from: watcher.announced, to: next };
    }
    this.#advance(id, next);
  }

  /** Session `id`'s log now ends before `next`: its watchers pull up to there. */
  #advance(id: string, next: number): void {
    for (const watcher of this.#watchers) if (watcher.id === id) this.#pull(watcher, next);
  }

  /** Delivers the watcher's events below `next` after everything queued before (in order, once). */
  #pull(watcher: Watcher, next: number): void {
    watcher.chain = watcher.chain.then(async () => {
      if (watcher.closed || next <= watcher.delivered) return;
      let events: SessionEvent[];
      try {
        events = await this.#fetch(watcher.id, watcher.delivered, next);
      } catch (e) {
        await this.#deliverBefore(watcher, e); // the rows before a corrupt one, then the error
        watcher.onError(e);
        return;
      }
      if (watcher.closed || events.length === 0) return;
      watcher.delivered = events.at(-1)!.seq + 1;
      try {
        watcher.onEvents(events);
      } catch (e) {
        watcher.onError(e);
      }
    });
  }

  /** When `error` names a corrupt row beyond what the watcher has, delivers the readable rows before it. */
  async #deliverBefore(watcher: Watcher, error: unknown): Promise<void> {
    if (!(error instanceof StoreError) || error.code !== "corrupt" || error.line === undefined) return;
    const bad = error.line - 2; // a log's line 1 is its header: seq s is line s + 2
    if (bad <= watcher.delivered) return;
    try {
      const events = await this.#fetch(watcher.id, watcher.delivered, bad);
      if (watcher.closed || events.length === 0) return;
      watcher.delivered = events.at(-1)!.seq + 1;
      watcher.onEvents(events);
    } catch {
      // the error at hand is reported either way
    }
  }

  #lost(error: unknown): void {
    const client = this.#client;
    this.#client = undefined;
    this.#stopTimers();
    void client?.then((c) => c.release(true)).catch(() => undefined);
    for (const watcher of [...this.#watchers]) {
      watcher.closed = true;
      this.#watchers.delete(watcher);
      watcher.onError(error);
    }
  }

  async #remove(watcher: Watcher): Promise<void> {
    watcher.closed = true;
    if (!this.#watchers.delete(watcher) || this.#watchers.size > 0) return;
    this.#stopTimers();
    const client = this.#client;
    this.#client = undefined;
    if (client === undefined) return;
    // Destroyed, not returned to the pool: a pooled connection must not keep LISTENing.
    await client.then((c) => c.release(true)).catch(() => undefined);
  }
}
