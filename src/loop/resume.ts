// resumeAgent and forkAgent: new loop instances over stored sessions. Each recomposes its
// session prefix and logs a `resume` header snapshot on its first request, so any drift since
// the previous instance is attributable by diffing consecutive snapshots.
//
// Neither copies the stored events after the load: the store validates them once and freezes
// the parsed values in place (`Session.fromParsedLog`); a resume runs on that session itself,
// and a fork's child shares those event objects (`forkSession` → `Session.fromSession`). The
// child's `events` view handed to `store.create` is a Session's own view, which
// `Session.fromLog` (the JSONL store's seed check) trusts instead of validating again.
import { forkSession } from "../session/index.js";
import type { SessionStore } from "../store/index.js";
import { agentOver } from "./agent.js";
import type { Agent, AgentOptions, AgentOutput } from "./types.js";

/** Loads `sessionId` writable (crash-repairing it durably) and returns an agent over it. */
export async function resumeAgent<O extends Omit<AgentOptions, "store" | "sessionId">>(
  store: SessionStore,
  sessionId: string,
  options: O,
): Promise<Agent<AgentOutput<O>>> {
  const { session } = await store.load(
    sessionId,
    options.clock === undefined ? {} : { session: { clock: options.clock } },
  );
  try {
    return agentOver({ ...options, store }, { session, storeOpen: true });
  } catch (error) {
    await store.release(sessionId);
    throw error;
  }
}

export interface ForkAgentOptions extends Omit<AgentOptions, "store"> {
  /** The parent's `turn/end` to fork at (inclusive); default its last. */
  readonly atSeq?: number;
}

/**
 * Creates a child session of `sessionId` at a `turn/end` boundary, stores it, and returns an
 * agent over it. The child shares the loaded parent's events (no copy, no second validation).
 */
export async function forkAgent<O extends ForkAgentOptions>(
  store: SessionStore,
  sessionId: string,
  options: O,
): Promise<Agent<AgentOutput<O>>> {
  const { session: parent } = await store.load(sessionId, { readOnly: true });
  const child = forkSession(parent, {
    ...(options.atSeq === undefined ? {} : { atSeq: options.atSeq }),
    ...(options.sessionId === undefined ? {} : { id: options.sessionId }),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
  });
  await store.create(child.header, child.events);
  try {
    return agentOver({ ...options, store }, { session: child, storeOpen: true });
  } catch (error) {
    await store.release(child.id);
    throw error;
  }
}
