// How far an agent's log is durable: its store's persistence, followed by the last seq no crash
// can take back. Committed events reach streams as they are appended, before the group commit
// that makes them durable (README, "Durability"); a process killed before it loses them, and the
// next writer logs other events at the same seqs. A client position (an SSE id) must name only
// what survives, so the encoders ask this (`durableThrough()` on a feed) before giving one.
import type { Session } from "../session/index.js";
import type { SessionPersistence } from "../store/index.js";

export class DurableLog implements SessionPersistence {
  readonly #inner: SessionPersistence;
  readonly #session: Session;
  /** The last durable seq (−1: none). */
  #through: number;

  /**
   * `created`: the store's creation of a new session (its events so far durable once it
   * resolves); absent for a session loaded from the store, durable as loaded.
   */
  constructor(inner: SessionPersistence, session: Session, created: Promise<void> | undefined) {
    this.#inner = inner;
    this.#session = session;
    this.#through = created === undefined ? session.length - 1 : -1;
    const upTo = session.length - 1;
    created?.then(() => this.#advance(upTo)).catch(() => {});
  }

  /** The last seq that is durable in the store: every event up to it survives a crash. */
  get through(): number {
    return this.#through;
  }

  /** Makes everything appended so far durable — what was appended before the call, at least. */
  async flush(): Promise<void> {
    const upTo = this.#session.length - 1;
    await this.#inner.flush();
    this.#advance(upTo);
  }

  dispose(): void {
    this.#inner.dispose();
  }

  #advance(seq: number): void {
    if (seq > this.#through) this.#through = seq;
  }
}
