// An InspectSource over any SessionStore that can follow a session as it grows — the
// PostgreSQL store's `watch` (LISTEN/NOTIFY) fits `WatchableStore` — read-only: loads are
// `load(id, { readOnly: true })` and nothing else is called but `list`, `watch` and `close`.
// The store is the caller's (the CLI builds it), so this layer never imports a driver.
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
} from "./types.js";

/** What the inspector needs of a store (structural: `PostgresSessionStore` is one). */
export interface WatchableStore {
  readonly label: string;
  load(id: string, options: { readonly readOnly: true }): Promise<LoadedSession>;
  list(): Promise<SessionSummary[]>;
  watch(
    id: string,
    onEvents: (events: readonly SessionEvent[]) => void,
    options: { readonly fromSeq?: number; readonly onError?: (error: unknown) => void },
  ): Promise<{ close(): Promise<void> }>;
  close(): Promise<void>;
  /** How messages name session `id`'s log (default `<label> session <id>`). */
  whereOf?(id: string): string;
}

export class StoreInspectSource implements InspectSource {
  readonly label: string;
  readonly #store: WatchableStore;

  constructor(store: WatchableStore) {
    this.#store = store;
    this.label = store.label;
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
          problem: error instanceof Error ? error.message : String(error),
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

  watch(
    id: string,
    fromSeq: number,
    onEvents: (events: readonly SessionEvent[]) => void,
    onError: (error: unknown) => void,
  ): Promise<InspectWatch> {
    return this.#store.watch(id, onEvents, { fromSeq, onError });
  }

  close(): Promise<void> {
    return this.#store.close();
  }
}
