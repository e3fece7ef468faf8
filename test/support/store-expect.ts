// Assertions and logs shared by the store tests (the contract suite and the per-store files).
import { expect } from "vitest";
import { type PendingEvent, Session, type SessionEvent, type SessionMeta } from "../../src/session/index.js";
import { StoreError, type StoreErrorCode } from "../../src/store/index.js";
import { LogDriver, newSession } from "./builders.js";

/** Runs `action` (sync or async) and asserts it fails with `StoreError(code)`; returns the error. */
export async function expectStoreError(action: () => unknown, code: StoreErrorCode): Promise<StoreError> {
  let thrown: unknown;
  try {
    await action();
  } catch (e) {
    thrown = e;
  }
  expect(thrown, "expected a StoreError, but the call succeeded").toBeInstanceOf(StoreError);
  const error = thrown as StoreError;
  // Matching on an object shows the message in the diff when the code is wrong.
  expect({ code: error.code, message: error.message }).toMatchObject({ code });
  return error;
}

/** A session header with the given id and creation time. */
export function sessionHeader(
  id: string,
  createdAt = 1_700_000_000_000,
  extra: Partial<SessionMeta> = {},
): SessionMeta {
  return { version: 1, id, createdAt, cwd: "/work", ...extra };
}

/**
 * A log that crashed mid-turn: one completed turn, then a turn whose step asked for two tool
 * calls of which only the first was logged as `tool/call`, and neither has a result.
 */
export function crashedLog(id: string): Session {
  return new LogDriver(newSession(id)).turn({ prompt: "Hello", steps: [{ text: "Hi." }] }).openTurn(
    "Read a and b.",
    [],
    [
      { name: "read", args: '{"path":"a"}' },
      { name: "read", args: '{"path":"b"}' },
    ],
  ).session;
}

/** The closers crash repair owes `events` (type and data; times are the repairing clock's). */
export function expectedClosers(
  header: SessionMeta,
  events: readonly SessionEvent[],
): Pick<PendingEvent, "type" | "data">[] {
  return Session.fromLog(header, events)
    .openTurnClosers()
    .map((p) => ({ type: p.type, data: p.data }));
}

/** Type and data of each event, for comparing repaired events with `expectedClosers`. */
export const typeAndData = (events: readonly SessionEvent[]): Pick<PendingEvent, "type" | "data">[] =>
  events.map((e) => ({ type: e.type, data: e.data }));
