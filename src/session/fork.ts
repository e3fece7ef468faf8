// Fork: a child session seeded with the parent's log up to an inclusive `turn/end` boundary.
// The child shares the parent's (validated, deep-frozen) events: `Session.fromSession`.
import { randomUUID } from "node:crypto";
import { SessionError } from "./errors.js";
import { Session, type SessionOptions } from "./session.js";
import type { SessionEvent, SessionMeta } from "./types.js";

export interface ForkOptions extends SessionOptions {
  /** Seq of the `turn/end` to fork at (inclusive); defaults to the last `turn/end`. */
  readonly atSeq?: number;
  readonly id?: string;
  readonly createdAt?: number;
  readonly cwd?: string;
}

/**
 * The seed a fork at `atSeq` copies: the events `0..atSeq`. Throws `SessionError` with code
 * `fork-boundary-out-of-range`, `fork-boundary-not-turn-end` or `fork-no-completed-turn`.
 */
export function forkSeed(events: readonly SessionEvent[], atSeq?: number): readonly SessionEvent[] {
  return events.slice(0, forkBoundary(events, atSeq) + 1);
}

/** The seq of the `turn/end` a fork at `atSeq` ends on (see `forkSeed` for the errors). */
function forkBoundary(events: readonly SessionEvent[], atSeq: number | undefined): number {
  let boundary = atSeq;
  if (boundary === undefined) {
    for (let i = events.length - 1; i >= 0; i--) {
      if (events[i]!.type === "turn/end") {
        boundary = i;
        break;
      }
    }
    if (boundary === undefined)
      throw new SessionError("fork-no-completed-turn", "cannot fork: the log has no turn/end yet");
  }
  if (!Number.isSafeInteger(boundary) || boundary < 0 || boundary >= events.length) {
    throw new SessionError(
      "fork-boundary-out-of-range",
      `fork boundary ${boundary} is outside the log (0..${events.length - 1})`,
    );
  }
  const event = events[boundary]!;
  if (event.type !== "turn/end") {
    throw new SessionError(
      "fork-boundary-not-turn-end",
      `fork boundary seq ${boundary} is a ${event.type}, not a turn/end`,
      boundary,
    );
  }
  return boundary;
}

/**
 * A new session whose log is the parent's up to the boundary, with `parentSession` and
 * `seedLength`. The child shares the parent's event objects (`child.events[i] ===
 * parent.events[i]`); its appends, and the parent's, never reach the other.
 */
export function forkSession(parent: Session, options: ForkOptions = {}): Session {
  const seedLength = forkBoundary(parent.events, options.atSeq) + 1;
  const cwd = options.cwd ?? parent.header.cwd;
  const header: SessionMeta = {
    version: 1,
    id: options.id ?? randomUUID(),
    createdAt: options.createdAt ?? (options.clock ?? Date.now)(),
    ...(cwd === undefined ? {} : { cwd }),
    parentSession: parent.id,
    seedLength,
  };
  return Session.fromSession(parent, header, seedLength, options);
}
