// Assertions shared by the session tests: "this throws a SessionError with this code", "the log
// did not change", and an independent surface fold to compare the live session's cache against.
import { expect } from "vitest";
import type { Message } from "../../src/messages/index.js";
import {
  deriveEventMessage,
  type Session,
  SessionError,
  type SessionErrorCode,
  type SessionEvent,
} from "../../src/session/index.js";
import { thrown } from "../support/thrown.js";

/** Runs `fn`, asserts it throws a `SessionError` with `code`, and returns the error. */
export function expectSessionError(fn: () => unknown, code: SessionErrorCode): SessionError {
  const error = catchSessionError(fn);
  expect(error.code, error.message).toBe(code);
  return error;
}

/** Runs `fn` and returns the error it throws, asserting it is a `SessionError` (any code). */
export function catchSessionError(fn: () => unknown): SessionError {
  return thrown(fn, SessionError);
}

export interface LogState {
  readonly length: number;
  readonly events: readonly SessionEvent[];
  readonly messages: readonly Message[];
  readonly surfaceSeqs: readonly number[];
  readonly surfaceGeneration: number;
  readonly openTurn: number | null;
  readonly openStep: number | null;
  readonly lastTurn: number;
  readonly closers: unknown;
}

/** Everything observable about a session's log, to compare before and after a rejected append. */
export function logState(session: Session): LogState {
  return {
    length: session.length,
    events: session.events,
    messages: session.deriveMessages(),
    surfaceSeqs: session.surfaceSeqs(),
    surfaceGeneration: session.surfaceGeneration,
    openTurn: session.openTurn,
    openStep: session.openStep,
    lastTurn: session.lastTurn,
    closers: session.openTurnClosers(),
  };
}

/** Asserts that `fn` throws a SessionError with `code` and leaves every observable of the log as it was. */
export function expectRejectedUnchanged(session: Session, fn: () => unknown, code: SessionErrorCode): SessionError {
  const before = logState(session);
  const error = expectSessionError(fn, code);
  const after = logState(session);
  expect(after).toEqual(before);
  expect(after.events).toBe(before.events); // not even a new snapshot: nothing was pushed
  return error;
}

/**
 * The surface folded naively from scratch: a plain array of messages and seqs, appended to or
 * spliced per event through `deriveEventMessage`. No caching, no shared state with `Session`.
 */
export function naiveSurface(events: readonly SessionEvent[]): { messages: Message[]; seqs: number[] } {
  const messages: Message[] = [];
  const seqs: number[] = [];
  for (const event of events) {
    const op = event.surfaceOp;
    if (op === undefined) continue;
    const message = deriveEventMessage(event)!;
    if (op === "append") {
      messages.push(message);
      seqs.push(event.seq);
    } else {
      messages.splice(op.start, op.end - op.start + 1, message);
      seqs.splice(op.start, op.end - op.start + 1, event.seq);
    }
  }
  return { messages, seqs };
}
