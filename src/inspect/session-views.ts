// Everything the endpoints show about one loaded session, computed on first use and kept while
// the log is unchanged (same length, same last event object — the store's load cache hands back
// the same events for an unchanged file), so a page's many requests fold a 10k-event log once.
// Nothing kept grows faster than the log: the request list keeps counts, the CLI text is
// streamed, verify walks the requests one at a time (request-walk.ts), a few request payloads
// are kept (least recently used dropped); the cache report, which holds every request at once
// (src/audit), is refused past `maxHeldMessages` (issue #20 F6).
import type { CacheReport } from "../audit/index.js";
import { type ReconstructedRequest, reconstructRequests } from "../reconstruct/index.js";
import type { SessionEvent } from "../session/index.js";
import { cacheReportOf } from "./cache-view.js";
import { headerChanges } from "./header-view.js";
import { cliRequestsChunks, requestList, requestPayload } from "./request-view.js";
import { timelineRows } from "./timeline.js";
import {
  type HeaderChange,
  InspectError,
  type InspectedSession,
  type RequestListItem,
  type RequestPayload,
  type SessionPayload,
  type TimelineRow,
  type VerifyPayload,
} from "./types.js";
import { verifyPayload } from "./verify-view.js";

/** The most request messages the cache report may hold at once, by default (the sum over requests). */
export const DEFAULT_MAX_HELD_MESSAGES = 4_000_000;

/** How many request payloads a session's views keep (each is O(that request)). */
const KEPT_PAYLOADS = 8;

export interface SessionViewsOptions {
  /** The cache report holds every request's messages at once: refused (413) above this sum. */
  readonly maxHeldMessages?: number;
}

export class SessionViews {
  readonly loaded: InspectedSession;
  readonly #maxHeldMessages: number;
  #requests?: ReconstructedRequest[];
  #requestList?: RequestListItem[];
  #rows?: TimelineRow[];
  #verify?: VerifyPayload;
  #cache?: CacheReport;
  #headers?: HeaderChange[];
  readonly #requestPayloads = new Map<number, RequestPayload>();

  constructor(loaded: InspectedSession, options: SessionViewsOptions = {}) {
    this.loaded = loaded;
    this.#maxHeldMessages = options.maxHeldMessages ?? DEFAULT_MAX_HELD_MESSAGES;
  }

  /** True while `next` is the same log as the one these views were computed for. */
  sameLog(next: InspectedSession): boolean {
    const a = this.loaded.session.events;
    const b = next.session.events;
    return a.length === b.length && a.at(-1) === b.at(-1) && this.loaded.where === next.where;
  }

  /** The requests, lazy (never materialized here but for the one `request(n)` shows). */
  get requests(): ReconstructedRequest[] {
    if (this.#requests === undefined) {
      const all: ReconstructedRequest[] = [];
      try {
        for (const r of reconstructRequests(this.loaded.session.events)) all.push(r);
      } catch {
        // a log whose reconstruction fails: the requests before the failure; verify names the problem
      }
      this.#requests = all;
    }
    return this.#requests;
  }

  get rows(): TimelineRow[] {
    this.#rows ??= timelineRows(this.loaded.session, new Map(this.requests.map((r, i) => [r.stepStartSeq, i + 1])));
    return this.#rows;
  }

  get verify(): VerifyPayload {
    this.#verify ??= verifyPayload(this.loaded);
    return this.#verify;
  }

  get cache(): CacheReport {
    if (this.#cache === undefined) {
      const held = this.requestList.reduce((n, r) => n + r.messages, 0);
      if (held > this.#maxHeldMessages)
        throw new InspectError(
          "too-large",
          `the cache report of this session would hold ${held} request messages at once (${this.requestList.length} requests); the inspector's limit is ${this.#maxHeldMessages}: run keelson cache ${this.loaded.session.id} --json`,
        );
      this.#cache = cacheReportOf(this.loaded.session);
    }
    return this.#cache;
  }

  get headers(): HeaderChange[] {
    this.#headers ??= headerChanges(this.loaded.session);
    return this.#headers;
  }

  get requestList(): RequestListItem[] {
    if (this.#requestList === undefined) {
      try {
        this.#requestList = requestList(this.loaded.session);
      } catch {
        this.#requestList = []; // as `requests`: verify names the problem
      }
    }
    return this.#requestList;
  }

  /** The CLI's `keelson requests <id>` output in pieces (stream them: the whole may not fit in memory). */
  requestsText(): Generator<string> {
    return cliRequestsChunks(this.loaded.session);
  }

  request(index: number): RequestPayload | undefined {
    if (!Number.isSafeInteger(index) || index < 1 || index > this.requests.length) return undefined;
    let payload = this.#requestPayloads.get(index);
    if (payload === undefined) payload = requestPayload(this.loaded.session, this.requests, index);
    this.#requestPayloads.delete(index);
    this.#requestPayloads.set(index, payload);
    if (this.#requestPayloads.size > KEPT_PAYLOADS)
      this.#requestPayloads.delete(this.#requestPayloads.keys().next().value!);
    return payload;
  }

  session(): SessionPayload {
    const { session, where, updatedAt } = this.loaded;
    const h = session.header;
    return {
      id: session.id,
      where,
      createdAt: h.createdAt,
      updatedAt,
      ...(h.cwd === undefined ? {} : { cwd: h.cwd }),
      ...(h.parentSession === undefined ? {} : { parentSession: h.parentSession }),
      ...(h.seedLength === undefined ? {} : { seedLength: h.seedLength }),
      ...(h.spawnedBy === undefined ? {} : { spawnedBy: { session: h.spawnedBy.session, callId: h.spawnedBy.callId } }),
      events: session.events.length,
      turns: session.lastTurn,
      openTurn: session.openTurn,
      rows: this.rows,
    };
  }

  /** Rows to refresh after events from seq `from` were appended: from the turn that `from - 1` was in. */
  rowsSince(from: number): { replaceFrom: number; rows: TimelineRow[] } {
    const events = this.loaded.session.events;
    let start = Math.min(from, events.length);
    for (let i = start - 1; i >= 0; i--) {
      const e = events[i] as SessionEvent;
      if (e.type === "turn/end") break;
      start = i;
      if (e.type === "turn/start") break;
    }
    return { replaceFrom: start, rows: this.rows.filter((r) => r.seq >= start) };
  }
}
