// A session that is not open, read from the store (a read-only load: no lock taken, nothing
// repaired, nothing written): `host.follow`'s committed events after `from` — a turn another
// process runs on it is not followed live: after its committed events so far the follow throws
// `open-elsewhere`, so a client is not told the session is idle — and what `host.pending` reads.
import { isKeelsonError } from "../errors/index.js";
import { AskingCalls, committedTurnEvent, followPositionFault, type TurnEvent } from "../loop/index.js";
import type { Session } from "../session/index.js";
import type { SessionStore, StoreErrorCode } from "../store/index.js";
import { HostError } from "./types.js";

/** Refuses a `from` that is not a seq of the log (or -1: everything). */
export function checkPosition(from: unknown, length: number, sessionId: string): number {
  const at = from === undefined ? -1 : from; // null is no position: invalid-position, as for agent.follow
  const fault = followPositionFault(at, length, `follow session ${sessionId}`);
  if (fault !== undefined) throw new HostError(fault.code, fault.message);
  return at as number;
}

/** The stored session read-only, or undefined when the store has none with that id. */
export async function loadStored(store: SessionStore, sessionId: string): Promise<Session | undefined> {
  try {
    return (await store.load(sessionId, { readOnly: true })).session;
  } catch (error) {
    if (isKeelsonError<StoreErrorCode>(error, "not-found")) return undefined;
    throw error;
  }
}

export async function followStored(
  store: SessionStore,
  sessionId: string,
  from: unknown,
): Promise<AsyncIterableIterator<TurnEvent>> {
  const session = await loadStored(store, sessionId);
  if (session === undefined) throw new HostError("not-found", `no session ${sessionId} in the store`);
  return committedAfter(session, checkPosition(from, session.length, sessionId));
}

async function* committedAfter(session: Session, from: number): AsyncGenerator<TurnEvent, void, undefined> {
  const askingCalls = new AskingCalls((seq) => session.eventAt(seq));
  for (let seq = from + 1; seq < session.length; seq++)
    yield askingCalls.pass(committedTurnEvent(session.eventAt(seq)!));
  const open = session.openTurn;
  // Found from outside: the follow ended as if the session were idle, a turn running elsewhere unsaid.
  if (open !== null)
    throw new HostError(
      "open-elsewhere",
      `turn ${open} of session ${session.id} is open in the log, not in this host: another process runs it (or one that stopped left it open — repaired when the session is next opened); its events after seq ${session.length - 1} are not followed here: follow it where it runs, or reconnect from there`,
    );
}
