// A follower's durable source (decision 0016): the followed session's committed events from a
// seq on, through the store's watch (LISTEN on the store's channel, rows fetched per commit),
// reopened where it stopped after a failure (a fetch or its connection), after a short backoff,
// for as long as the follower lives — unless the log itself is unreadable (a corrupt row, a newer
// format): retrying cannot mend that, so the follower ends with the store's error. Starting it
// marks the session watched, which is how a worker knows at a turn's start that a follower is
// there (MARK_STARTED).
import { isKeelsonError } from "../errors/index.js";
import type { SessionEvent } from "../session/index.js";
import type { PostgresSessionStore, SessionWatch } from "../store/postgres/index.js";

const RETRY_MS = [50, 200, 1000] as const;
/** Store errors a reopened watch would meet again: the follower fails with them. */
const UNREADABLE = new Set(["corrupt", "newer-version"]);

export class LogTail {
  readonly #store: () => PostgresSessionStore;
  readonly #sessionId: string;
  readonly #onEvents: (events: readonly SessionEvent[]) => void;
  readonly #onUnreadable: (error: unknown) => void;
  #watch: SessionWatch | undefined;
  #retry: NodeJS.Timeout | undefined;
  #failures = 0;
  /** Bumped by every (re)start and by close: a replaced watch's deliveries are ignored. */
  #generation = 0;
  #next = 0;
  #started = false;
  #closed = false;

  constructor(
    store: () => PostgresSessionStore,
    sessionId: string,
    onEvents: (events: readonly SessionEvent[]) => void,
    /** The log cannot be read (a corrupt row, a newer format): called once; the tail stops. */
    onUnreadable: (error: unknown) => void,
  ) {
    this.#store = store;
    this.#sessionId = sessionId;
    this.#onEvents = onEvents;
    this.#onUnreadable = onUnreadable;
  }

  /** Whether the tail runs (or is being reopened). */
  get started(): boolean {
    return this.#started && !this.#closed;
  }

  /** The next seq it delivers. */
  get next(): number {
    return this.#next;
  }

  /** (Re)starts the tail at `from`; resolves once it is watching (or is to be retried). */
  async start(from: number): Promise<void> {
    if (this.#closed) return;
    this.#started = true;
    clearTimeout(this.#retry);
    this.#retry = undefined;
    const previous = this.#watch;
    this.#watch = undefined;
    const generation = ++this.#generation;
    await previous?.close().catch(() => undefined);
    await this.#open(from, generation);
  }

  async #open(from: number, generation: number): Promise<void> {
    const current = (): boolean => generation === this.#generation && !this.#closed;
    this.#next = from;
    try {
      const watch = await this.#store().watch(
        this.#sessionId,
        (events) => {
          if (!current() || events.length === 0) return;
          this.#failures = 0;
          this.#next = events.at(-1)!.seq + 1;
          this.#onEvents(events);
        },
        { fromSeq: from, onError: (error) => (current() ? this.#failed(generation, error) : undefined) },
      );
      if (current()) this.#watch = watch;
      else await watch.close();
    } catch (error) {
      if (current()) this.#failed(generation, error);
    }
  }

  /** Reopened where it stopped, after a backoff — or, when the log is unreadable, stopped. */
  #failed(generation: number, error: unknown): void {
    if (isKeelsonError(error) && UNREADABLE.has(error.code)) {
      void this.close();
      this.#onUnreadable(error);
      return;
    }
    if (this.#retry !== undefined) return;
    const watch = this.#watch;
    this.#watch = undefined;
    void watch?.close().catch(() => undefined);
    const delay = RETRY_MS[Math.min(this.#failures++, RETRY_MS.length - 1)]!;
    this.#retry = setTimeout(() => {
      this.#retry = undefined;
      if (generation === this.#generation && !this.#closed) void this.#open(this.#next, generation);
    }, delay);
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#generation++;
    clearTimeout(this.#retry);
    const watch = this.#watch;
    this.#watch = undefined;
    await watch?.close().catch(() => undefined);
  }
}
