// resumeAgent and forkAgent: new loop instances over stored sessions. Each recomposes its
// session prefix and logs a `resume` header snapshot on its first request, so any drift since
// the previous instance is attributable by diffing consecutive snapshots.
//
// Neither copies the stored events after the load: the store validates them once and freezes
// the parsed values in place (`Session.fromParsedLog`); a resume runs on that session itself,
// and a fork's child shares those event objects (`forkSession` → `Session.fromSession`). The
// child's `events` view handed to `store.create` is a Session's own view, which
// `Session.fromLog` (the JSONL store's seed check) trusts instead of validating again.
import { errorMessage, isKeelsonError } from "../errors/index.js";
import { forkSession, type Session, type SessionEvent, subagentSessionId } from "../session/index.js";
import type { SessionStore } from "../store/index.js";
import { type AgentOrigin, agentOver } from "./agent.js";
import type { Agent, AgentOptions, AgentOutput } from "./types.js";

/** Loads `sessionId` writable (crash-repairing it durably) and returns an agent over it. */
export async function resumeAgent<O extends Omit<AgentOptions, "store" | "sessionId">>(
  store: SessionStore,
  sessionId: string,
  options: O,
): Promise<Agent<AgentOutput<O>>> {
  const { session, repaired } = await store.load(
    sessionId,
    options.clock === undefined ? {} : { session: { clock: options.clock } },
  );
  await repairSubagents(store, session, repaired);
  try {
    return await agentOverStored({ ...options, store }, { session, storeOpen: true });
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

/**
 * Crash repair of a parent reaches its children: each subagent call the repair closed (its
 * child was running when the writer died) may have a child session with an open turn; a
 * writable load repairs it durably (and its own children, recursively). Best effort: a child
 * that cannot be opened now (locked by a writer still alive, gone) keeps its own repair for its
 * next writable load, and the resume goes on.
 */
async function repairSubagents(
  store: SessionStore,
  session: Session,
  repaired: readonly SessionEvent[],
): Promise<void> {
  for (const event of repaired) {
    if (event.type !== "tool/result") continue;
    const childId = subagentSessionId(session.id, (event as SessionEvent<"tool/result">).data.callId);
    if (childId === undefined) continue;
    try {
      const child = await store.load(childId);
      try {
        await repairSubagents(store, child.session, child.repaired);
      } finally {
        await store.release(childId);
      }
    } catch (error) {
      if (!isKeelsonError(error, "not-found"))
        process.emitWarning(
          `subagent session ${childId} was not repaired now: ${errorMessage(error)}`,
          "KeelsonWarning",
        );
    }
  }
}

/** `agentOver` a stored session, once it has read what its held calls' subagents wait for (`pendingApprovals`). */
async function agentOverStored<O extends AgentOptions>(
  options: O,
  origin: AgentOrigin,
): Promise<Agent<AgentOutput<O>>> {
  const agent = agentOver(options, origin);
  await (agent as unknown as { refreshPauses(): Promise<void> }).refreshPauses();
  return agent;
}
