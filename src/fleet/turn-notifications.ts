// The queue's notifications: one dedicated connection LISTENing on `keelson_turns` (payload
// `<turn id> <status>`, plus ` <profile>` when an enqueue queued it and ` <worker id>` when a
// claim made it running, sent right after every status change has committed, by a notify-only
// statement of its own: notify-turns.ts, decision 0036), and on whatever other channels `listen` adds (the follow channels, decision 0016). A
// notification only says "look again": it is missed while the connection is down, so everyone
// who waits on it also polls. A lost connection is dropped and opened again (with every channel
// LISTENed again) by the next `listening()` or `listen()` call, or by itself after a short backoff
// (0.1 s, doubling to 5 s) while anyone listens; `onReopen` listeners then learn that notifications
// may have been missed (a follower asks for the turn again). A worker opens it without
// `keelson_turns` (`{ turns: false }`): it hears the queue on QUEUE_CHANNEL, and only while it
// has a slot to claim with (worker.ts, decision 0030).
import type { PgClient, PgPool } from "../store/postgres/index.js";
import { TURNS_CHANNEL } from "./turn-queries.js";
import type { TurnStatus } from "./types.js";

/**
 * `detail`: an enqueue's notification names the profile (a recovered turn queued again has
 * none); a claim's `running` names the claiming worker.
 */
export type TurnListener = (id: string, status: TurnStatus, detail: string | undefined) => void;

export class TurnNotifications {
  readonly #pool: PgPool;
  readonly #listeners = new Set<TurnListener>();
  /** Other channels' handlers, by channel (identifiers only: they are interpolated into LISTEN). */
  readonly #channels = new Map<string, Set<(payload: string) => void>>();
  #client: Promise<PgClient> | undefined;
  /** The connection #client resolved to, once it did. */
  #connected: PgClient | undefined;
  /** Channels LISTENed (or being LISTENed) on the open connection. */
  #listened = new Set<string>();
  /** The (UN)LISTEN statements on the open connection, one at a time and in order. */
  #commands: Promise<unknown> = Promise.resolve();
  #closed = false;
  /** Called when a connection opens after one was lost (notifications may have been missed meanwhile). */
  readonly #reopened = new Set<() => void>();
  /** A connection was lost since the last one opened. */
  #lost = false;
  #reopenTimer: ReturnType<typeof setTimeout> | undefined;
  #reopenDelayMs = REOPEN_FIRST_MS;
  /** Whether the connection LISTENs on TURNS_CHANNEL (every status change: the clients' channel). */
  readonly #turns: boolean;

  constructor(pool: PgPool, options: { readonly turns?: boolean } = {}) {
    this.#pool = pool;
    this.#turns = options.turns ?? true;
  }

  /** Calls `listener` each time a connection opens after one was lost; returns the unsubscribe function. */
  onReopen(listener: () => void): () => void {
    this.#reopened.add(listener);
    return () => this.#reopened.delete(listener);
  }

  /** Calls `listener` for every notification; returns the unsubscribe function. */
  subscribe(listener: TurnListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Calls `handler` with every payload sent on `channel` (a plain identifier) until the returned
   * function is called. The channel is LISTENed now when the connection is up, and whenever it
   * is (re)opened by `listening()` or `listen()`.
   */
  subscribeChannel(channel: string, handler: (payload: string) => void): () => void {
    if (!/^[a-z_][a-z0-9_]{0,62}$/.test(channel)) throw new TypeError(`not a channel name: ${channel}`);
    let handlers = this.#channels.get(channel);
    if (handlers === undefined) {
      handlers = new Set();
      this.#channels.set(channel, handlers);
      if (this.#connected !== undefined) this.#listen(this.#connected, channel).catch(() => undefined); // a failure drops the connection
    }
    const mine = handlers;
    const own = (payload: string): void => handler(payload); // a distinct entry per call
    mine.add(own);
    return () => {
      if (!mine.delete(own) || mine.size > 0 || this.#channels.get(channel) !== mine) return;
      this.#channels.delete(channel);
      // Queued now, so a later LISTEN of the same channel runs after it.
      if (this.#connected === undefined) return;
      this.#listened.delete(channel);
      this.#command(this.#connected, `UNLISTEN ${channel}`).catch(() => undefined);
    };
  }

  /**
   * `subscribeChannel`, resolved once `channel` is LISTENed — every payload sent after that
   * reaches `handler`; rejects (unsubscribed) when the connection cannot be opened.
   */
  async listen(channel: string, handler: (payload: string) => void): Promise<() => void> {
    const unsubscribe = this.subscribeChannel(channel, handler);
    try {
      if (this.#closed) throw new Error("the notification connection is closed");
      this.#client ??= this.#open();
      const pending = this.#client;
      const client = await pending.catch((e: unknown) => {
        if (this.#client === pending) this.#client = undefined; // the next call tries again
        throw e;
      });
      await this.#listen(client, channel);
    } catch (e) {
      unsubscribe();
      throw e;
    }
    return unsubscribe;
  }

  /** LISTENs `channel` on `client` unless it is already (the one statement in flight is awaited). */
  #listen(client: PgClient, channel: string): Promise<void> {
    if (this.#listened.has(channel)) return this.#commands.then(() => undefined);
    this.#listened.add(channel);
    return this.#command(client, `LISTEN ${channel}`);
  }

  #command(client: PgClient, sql: string): Promise<void> {
    const run = this.#commands.then(() => client.query(sql)).then(() => undefined);
    this.#commands = run.catch(() => undefined);
    return run;
  }

  /** Resolves true once the LISTEN connection is up (opening it when needed), false if it cannot be. */
  async listening(): Promise<boolean> {
    if (this.#closed) return false;
    this.#client ??= this.#open();
    const pending = this.#client;
    try {
      await pending;
      return true;
    } catch {
      if (this.#client === pending) this.#client = undefined;
      return false;
    }
  }

  async #open(): Promise<PgClient> {
    const client = await this.#pool.connect();
    client.on("notification", (message: { channel?: string; payload?: string }) => {
      if (message.channel === TURNS_CHANNEL) this.#notified(message.payload ?? "");
      else if (message.channel !== undefined)
        for (const handler of this.#channels.get(message.channel) ?? []) {
          try {
            handler(message.payload ?? "");
          } catch {
            // a handler's failure is its own (the follow handlers contain theirs); never the connection's
          }
        }
    });
    client.on("error", () => this.#drop(client));
    try {
      if (this.#turns) await client.query(`LISTEN ${TURNS_CHANNEL}`);
      const channels = [...this.#channels.keys()];
      for (const channel of channels) await client.query(`LISTEN ${channel}`);
      this.#listened = new Set(channels);
      this.#commands = Promise.resolve();
    } catch (e) {
      client.release(true);
      throw e;
    }
    this.#connected = client;
    // Channels subscribed while it was opening.
    for (const channel of this.#channels.keys())
      if (!this.#listened.has(channel)) void this.#listen(client, channel).catch(() => undefined);
    this.#reopenDelayMs = REOPEN_FIRST_MS;
    if (this.#lost) {
      this.#lost = false;
      for (const listener of [...this.#reopened]) {
        try {
          listener();
        } catch {
          // a listener's failure is its own
        }
      }
    }
    return client;
  }

  #notified(payload: string): void {
    const parsed = parseTurnPayload(payload);
    if (parsed === undefined) return;
    for (const listener of this.#listeners) listener(parsed.id, parsed.status, parsed.detail);
  }

  #drop(client: PgClient): void {
    if (this.#connected !== client) return; // already dropped (or never finished opening: its LISTEN fails)
    this.#connected = undefined;
    this.#client = undefined; // the next listening() opens a new one
    client.removeAllListeners("notification");
    client.release(true);
    if (this.#closed) return;
    this.#lost = true;
    this.#reopenSoon();
  }

  /** While anyone listens, opens the lost connection again after a backoff (until one opens or it closes). */
  #reopenSoon(): void {
    if (this.#reopenTimer !== undefined || this.#closed) return;
    if (this.#channels.size === 0 && this.#listeners.size === 0 && this.#reopened.size === 0) return;
    const delay = this.#reopenDelayMs;
    this.#reopenDelayMs = Math.min(delay * 2, REOPEN_MAX_MS);
    this.#reopenTimer = setTimeout(() => {
      this.#reopenTimer = undefined;
      if (this.#closed || this.#connected !== undefined) return;
      void this.listening().then((up) => {
        if (!up) this.#reopenSoon();
      });
    }, delay);
    this.#reopenTimer.unref?.();
  }

  /** Ends the LISTEN connection (destroyed, never returned to the pool while listening). */
  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#reopenTimer);
    this.#reopenTimer = undefined;
    this.#reopened.clear();
    const client = this.#client;
    this.#client = undefined;
    this.#listeners.clear();
    this.#channels.clear();
    if (client === undefined) return;
    const opened = await client.catch(() => undefined);
    if (opened !== undefined && this.#connected === opened) this.#drop(opened);
  }
}

/** The backoff of opening a lost LISTEN connection again: first wait, and the most it grows to. */
const REOPEN_FIRST_MS = 100;
const REOPEN_MAX_MS = 5000;

/** A queue notification's payload, `<turn id> <status>[ <detail>]`; undefined when it is not one. */
export function parseTurnPayload(
  payload: string,
): { readonly id: string; readonly status: TurnStatus; readonly detail: string | undefined } | undefined {
  const [id, status] = payload.split(" ", 2);
  if (id === undefined || status === undefined) return undefined;
  const rest = payload.slice(id.length + status.length + 2);
  return { id, status: status as TurnStatus, detail: rest === "" ? undefined : rest };
}
