// An InspectSource over any SessionStore that can follow a session as it grows — the
// PostgreSQL store's `watch` (LISTEN/NOTIFY) fits `WatchableStore` — read-only: loads are
// `load(id, { readOnly: true })` and nothing else is called but `list`, `watch` and `close`.
// The store is the caller's (the CLI builds it), so this layer never imports a driver.
//
// A watch cannot trust notifications alone: behind a pooler in transaction mode (PgBouncer)
// LISTEN is accepted but no notification ever arrives (issue #20 F7). So each watch also looks
// at the stored log every `pollMs` (an unchanged PostgreSQL log costs one head query); when the
// log holds events a whole poll period after a poll first saw them and the store's watch has
// still not delivered them — or the store's watch cannot start, or reports events its own
// catch-up poll found unannounced — the watch falls back to delivering from those loads and
// tells the page (`onNotice`).
import { errorMessage } from "../errors/index.js";
import type { Session, SessionEvent } from "../session/index.js";
import type { LoadedSession, SessionSummary } from "../store/index.js";
import { StoreError } from "../store/index.js";
import { listedSession } from "./session-summary.js";
import {
  type InspectedSession,
  InspectError,
  type InspectSource,
  type InspectWatch,
  type ListedSession,
  type LiveNotice,
} from "./types.js";

/** What the inspector needs of a store (structural: `PostgresSessionStore` is one). */
export interface WatchableStore {
  readonly label: string;
  load(id: string, options: { readonly readOnly: true }): Promise<LoadedSession>;
  list(): Promise<SessionSummary[]>;
  watch(
    id: string,
    onEvents: (events: readonly SessionEvent[]) => void,
    options: {
      readonly fromSeq?: number;
      readonly onError?: (error: unknown) => void;
      /** The store delivered events by polling that no notification announced (PostgreSQL's catch-up poll). */
      readonly onUnannounced?: (gap: { readonly from: number; readonly to: number }) => void;
    },
  ): Promise<{ close(): Promise<void> }>;
  close(): Promise<void>;
  /** How messages name session `id`'s log (default `<label> session <id>`). */
  whereOf?(id: string): string;
}

export interface StoreInspectSourceOptions {
  /** How often a watch looks at the stored log besides the store's notifications (ms; default 2000). */
  readonly pollMs?: number;
}

export class StoreInspectSource implements InspectSource {
  readonly label: string;
  readonly #store: WatchableStore;
  readonly #pollMs: number;

  constructor(store: WatchableStore, options: StoreInspectSourceOptions = {}) {
    this.#store = store;
    this.label = store.label;
    this.#pollMs = options.pollMs ?? 2000;
  }

  async list(): Promise<ListedSession[]> {
    const rows: ListedSession[] = [];
    for (const summary of await this.#store.list()) {
      try {
        const { session } = await this.#store.load(summary.id, { readOnly: true });
        rows.push(listedSession(session, summary.updatedAt));
      } catch (error) {
        rows.push({
          kind: "unreadable",
          name: summary.id,
          problem: errorMessage(error),
          ...(error instanceof StoreError ? { code: error.code } : {}),
        });
      }
    }
    return rows;
  }

  async load(id: string): Promise<InspectedSession> {
    let session: Session;
    try {
      ({ session } = await this.#store.load(id, { readOnly: true }));
    } catch (error) {
      if (error instanceof StoreError && error.code === "not-found") throw new InspectError("not-found", error.message);
      throw error;
    }
    const where = this.#store.whereOf?.(id) ?? `${this.label} session ${id}`;
    const updatedAt = session.events.at(-1)?.time ?? session.header.createdAt;
    return { session, where, firstSeq: 0, updatedAt };
  }

  async watch(
    id: string,
    fromSeq: number,
    onEvents: (events: readonly SessionEvent[]) => void,
    onError: (error: unknown) => void,
    onNotice: (notice: LiveNotice) => void = () => undefined,
  ): Promise<InspectWatch> {
    const store = this.#store;
    const pollMs = this.#pollMs;
    let delivered = fromSeq;
    let closed = false;
    let polling = false;
    let notified: { close(): Promise<void> } | undefined;
    /** A log length a poll saw beyond what had been delivered (cleared once delivered). */
    let pending: number | undefined;
    const deliver = (events: readonly SessionEvent[]): void => {
      const fresh = events.filter((e) => e.seq >= delivered);
      if (closed || fresh.length === 0) return;
      delivered = fresh.at(-1)!.seq + 1;
      onEvents(fresh);
    };
    const fallBack = async (why: string): Promise<void> => {
      polling = true;
      onNotice({ mode: "polling", pollMs, message: `${why}; following the log by polling every ${pollMs} ms` });
      const stopping = notified;
      notified = undefined;
      await stopping?.close().catch(() => undefined);
    };
    try {
      // The store may poll for lost notifications itself: the first gap it reports is enough to tell the page.
      const onUnannounced = (gap: { readonly from: number; readonly to: number }): void => {
        if (!polling && !closed) void fallBack(noNotification(gap.from, gap.to));
      };
      notified = await store.watch(id, deliver, { fromSeq, onError, onUnannounced });
      onNotice({ mode: "notify", message: "the store notifies appends (LISTEN/NOTIFY)" });
    } catch (error) {
      await fallBack(`the store's notifications could not start (${errorMessage(error)})`);
    }
    let chain = Promise.resolve();
    const poll = (): void => {
      chain = chain.then(async () => {
        if (closed) return;
        try {
          const { session } = await store.load(id, { readOnly: true });
          const length = session.events.length;
          if (!polling && length > delivered) {
            if (pending === undefined || delivered >= pending) pending = length;
            else await fallBack(noNotification(delivered, pending));
          }
          if (polling) deliver(session.events.slice(delivered));
        } catch (error) {
          onError(error);
        }
      });
    };
    const timer = setInterval(poll, pollMs);
    timer.unref();
    return {
      close: async () => {
        closed = true;
        clearInterval(timer);
        await chain;
        await notified?.close();
      },
    };
  }

  close(): Promise<void> {
    return this.#store.close();
  }
}

/** The notice's reason when events [from, to) came without their notification. */
const noNotification = (from: number, to: number): string =>
  `no notification came for events ${from}–${to - 1}, stored a poll period ago (a connection pooler in transaction mode, such as PgBouncer, drops LISTEN)`;
