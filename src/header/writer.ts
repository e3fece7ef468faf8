// HeaderWriter: the per-loop-instance header recorder. It keeps the fold of the log's header
// events and, for each request, appends what `decideHeaderRecord` says: a snapshot on the
// instance's first request, nothing when unchanged, else a delta or a fallback snapshot.
// One writer per loop instance: a new instance (resume, fork, restart) means a new writer.
import { deepFreeze, isDeepFrozen, snapshotJson } from "../json/index.js";
import type { Session } from "../session/index.js";
import { canonicalHeader } from "./canonical.js";
import { foldHeaderEvent } from "./fold.js";
import { decideHeaderRecord } from "./record.js";
import type { EpochHeader, HeaderRecord } from "./types.js";
import { validateEpochHeader } from "./validate.js";

export class HeaderWriter {
  readonly #session: Session;
  #folded: EpochHeader | undefined;
  #first = true;
  /** The last header recorded, kept only when every part of it was deep-frozen (immutable). */
  #lastFrozenInput: EpochHeader | undefined;

  /**
   * Folds `session`'s log once, from its last snapshot on (the same header, at a cost that does
   * not grow with history); afterwards the writer tracks what it appends itself.
   */
  constructor(session: Session) {
    this.#session = session;
    this.#folded = latestHeaderOf(session);
  }

  /** The header in force (the fold after the last record). */
  get current(): EpochHeader | undefined {
    return this.#folded;
  }

  /**
   * Records `header` for the next request and returns the decision that was logged. The header
   * is validated (`HeaderError`, nothing logged) and copied: mutating the caller's object later
   * cannot make the fold disagree with what was used.
   */
  record(header: EpochHeader): HeaderRecord {
    // Fast path, the loop's common case: the same immutable system, tools and prefix as the last
    // record and the config in force. Unchanged by construction — no copy, no canonical compare.
    if (this.#unchangedImmutable(header)) return NONE;
    validateEpochHeader(header);
    const used = canonicalHeader(deepFreeze(snapshotJson(header) as unknown as EpochHeader));
    const decision = decideHeaderRecord({ folded: this.#folded, next: used, firstOfInstance: this.#first });
    if (decision.kind === "snapshot") {
      this.#session.append("request/header", { header: decision.header as never, reason: decision.reason });
    } else if (decision.kind === "delta") {
      this.#session.append("request/header-delta", decision.delta as never);
    }
    this.#first = false;
    this.#folded = used;
    this.#lastFrozenInput =
      isDeepFrozen(header.system) && isDeepFrozen(header.tools) && isDeepFrozen(header.messagePrefix)
        ? header
        : undefined;
    return decision;
  }

  #unchangedImmutable(header: EpochHeader): boolean {
    const last = this.#lastFrozenInput;
    if (this.#first || last === undefined || this.#folded === undefined) return false;
    const sameConfig =
      header.config === this.#folded.config || (header.config === last.config && isDeepFrozen(header.config));
    return (
      sameConfig &&
      header.system === last.system &&
      header.tools === last.tools &&
      header.messagePrefix === last.messagePrefix
    );
  }
}

const NONE: HeaderRecord = Object.freeze({ kind: "none" });

/**
 * The header in force at the end of each log, by the log's last event. An event object is in
 * the logs of one lineage only (see `takeParsed` in src/session/session.ts), so the log ending
 * at it is one log: a server that builds an agent per turn over forks or resumes of the same
 * stored session folds once, not once per agent (the fold scans back to the last snapshot,
 * which can be the whole log). `null` records "no header logged yet".
 */
const foldedAt = new WeakMap<object, EpochHeader | null>();

/** `foldLatestRequestHeader(session.events)`, memoised by the log's last event, without building the `events` view. */
function latestHeaderOf(session: Session): EpochHeader | undefined {
  const last = session.eventAt(session.length - 1);
  if (last === undefined) return undefined;
  const known = foldedAt.get(last);
  if (known !== undefined) return known ?? undefined;
  let start = session.length - 1;
  while (start > 0 && session.eventAt(start)!.type !== "request/header") start--;
  let header: EpochHeader | undefined;
  for (let i = start; i < session.length; i++) header = foldHeaderEvent(header, session.eventAt(i)!);
  if (header !== undefined) deepFreeze(header); // shared by every writer over this log
  foldedAt.set(last, header ?? null);
  return header;
}
