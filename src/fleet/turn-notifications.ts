// The queue's notifications: one dedicated connection LISTENing on `keelson_turns` (payload
// `<turn id> <status>`, plus ` <profile>` when an enqueue queued it and ` <worker id>` when a
// claim made it running, sent in the transaction of every status change, so delivered at its
// commit). A notification only says "look again": it is missed while the connection is down, so
// everyone who waits on it also polls. A lost connection is dropped and opened again by the next
// `listening()` call.
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
  #client: Promise<PgClient> | undefined;
  /** The connection #client resolved to, once it did. */
  #connected: PgClient | undefined;
  #closed = false;

  constructor(pool: PgPool) {
    this.#pool = pool;
  }

  /** Calls `listener` for every notification; returns the unsubscribe function. */
  subscribe(listener: TurnListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
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
    });
    client.on("error", () => this.#drop(client));
    try {
      await client.query(`LISTEN ${TURNS_CHANNEL}`);
    } catch (e) {
      client.release(true);
      throw e;
    }
    this.#connected = client;
    return client;
  }

  #notified(payload: string): void {
    const [id, status] = payload.split(" ", 2);
    if (id === undefined || status === undefined) return;
    const rest = payload.slice(id.length + status.length + 2);
    const detail = rest === "" ? undefined : rest;
    for (const listener of this.#listeners) listener(id, status as TurnStatus, detail);
  }

  #drop(client: PgClient): void {
    if (this.#connected !== client) return; // already dropped (or never finished opening: its LISTEN fails)
    this.#connected = undefined;
    this.#client = undefined; // the next listening() opens a new one
    client.removeAllListeners("notification");
    client.release(true);
  }

  /** Ends the LISTEN connection (destroyed, never returned to the pool while listening). */
  async close(): Promise<void> {
    this.#closed = true;
    const client = this.#client;
    this.#client = undefined;
    this.#listeners.clear();
    if (client === undefined) return;
    const opened = await client.catch(() => undefined);
    if (opened !== undefined && this.#connected === opened) this.#drop(opened);
  }
}
