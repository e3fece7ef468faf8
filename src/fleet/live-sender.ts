// A worker's one NOTIFY in flight (decision 0016): every followed turn it runs hands its pending
// events here, and one statement sends what all of them gathered — each turn's frames on its
// session's channel, in order, in one transaction — while the next gathers. No timers: the
// coalescing window is the statement's round trip (the first statement after a quiet spell waits
// for the end of the current event-loop turn, so what the loop appends in one go travels
// together). One statement per worker rather than per turn: with many turns streaming at once,
// PostgreSQL serializes notifying commits, and fewer, fuller ones cost it less. The statements go
// on a connection of their own (taken from the pool while the worker publishes), so a delta never
// waits behind the worker's flushes and claims for a pooled connection.
import type { PgClient, PgPool } from "../store/postgres/index.js";

/** Sends frame $2[i] on channel $1[i], in order, in one transaction. */
const SEND = `SELECT pg_notify(c, f) FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS m (c, f, n) ORDER BY n`;

/** Something with frames to send: its channel, and what it has gathered (drained by `frames`). */
export interface LiveSource {
  readonly channel: string;
  /** The frames of what gathered since the last call (empty when nothing did). */
  frames(): string[];
}

export class LiveSender {
  readonly #pool: PgPool;
  readonly #onError: (error: unknown) => void;
  /** Sources with frames waiting for the next statement. */
  readonly #waiting = new Set<LiveSource>();
  /** Sources whose frames the statement in flight carries. */
  #carried = new Set<LiveSource>();
  #running: Promise<void> | undefined;
  /** The connection the statements go on (taken on first use, given back by `close`). */
  #client: Promise<PgClient> | undefined;
  /** Woken whenever a statement starts or ends. */
  #wakers: (() => void)[] = [];

  constructor(pool: PgPool, onError: (error: unknown) => void) {
    this.#pool = pool;
    this.#onError = onError;
  }

  /** `source` has gathered something: it goes with the next statement. */
  kick(source: LiveSource): void {
    this.#waiting.add(source);
    this.#running ??= this.#run();
  }

  /** Resolves once everything `source` gathered so far was sent (or failed to be). */
  async sent(source: LiveSource): Promise<void> {
    while (this.#waiting.has(source) || this.#carried.has(source))
      await new Promise<void>((resolve) => this.#wakers.push(resolve));
  }

  #wake(): void {
    for (const wake of this.#wakers.splice(0)) wake();
  }

  async #send(channels: string[], frames: string[]): Promise<void> {
    try {
      this.#client ??= this.#pool.connect();
      await (await this.#client).query(SEND, [channels, frames]);
    } catch (error) {
      // Lost frames are a gap the followers fill from the log (committed events; deltas are gone).
      this.#onError(error);
      const client = this.#client;
      this.#client = undefined; // a new connection next time
      client?.then((c) => c.release(true)).catch(() => undefined);
    }
  }

  /** Gives the connection back once nothing is in flight (the worker is stopping). */
  async close(): Promise<void> {
    await this.#running;
    const client = this.#client;
    this.#client = undefined;
    await client?.then((c) => c.release()).catch(() => undefined);
  }

  async #run(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    try {
      while (this.#waiting.size > 0) {
        const channels: string[] = [];
        const frames: string[] = [];
        this.#carried = new Set(this.#waiting);
        this.#waiting.clear();
        for (const source of this.#carried)
          for (const frame of source.frames()) {
            channels.push(source.channel);
            frames.push(frame);
          }
        this.#wake();
        if (frames.length > 0) await this.#send(channels, frames);
        this.#carried = new Set();
        this.#wake();
      }
    } finally {
      this.#running = undefined;
      this.#wake();
    }
  }
}
