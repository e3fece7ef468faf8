// The inspector's view of subagents across sessions: a child's page learns where its call sits
// in the parent's log (the row to jump back to), and a parent's verify gains `keelson verify`'s
// subagent checks (each child it started exists, links back, and ended). Both read the other
// sessions through the source, read-only.
import { checkSubagents, type ChildState, childStateOf, type Session, type SessionEvent } from "../session/index.js";
import type { InspectedSession, SessionPayload, VerifyPayload } from "./types.js";

/** A child's payload with the seq of its call's result in the parent's log, when the parent reads. */
export async function withParentSeq(
  payload: SessionPayload,
  loadParent: (id: string) => Promise<Session>,
): Promise<SessionPayload> {
  const by = payload.spawnedBy;
  if (by === undefined) return payload;
  let parent: Session;
  try {
    parent = await loadParent(by.session);
  } catch {
    return payload; // the parent is gone or unreadable: the link still names it
  }
  const events = parent.events;
  for (let seq = events.length - 1; seq >= 0; seq--) {
    const e = events[seq] as SessionEvent<"tool/result">;
    if (e.type === "tool/result" && e.data.callId === by.callId) return { ...payload, spawnedBy: { ...by, seq } };
  }
  return payload;
}

/** `verify` of a session plus its subagents' problems (each at the call's result row and line). */
export async function withSubagentProblems(
  verify: VerifyPayload,
  loaded: InspectedSession,
  load: (id: string) => Promise<InspectedSession>,
): Promise<VerifyPayload> {
  const { session, where, firstSeq } = loaded;
  const problems = await checkSubagents(session, async (id): Promise<ChildState | undefined> => {
    try {
      const child = (await load(id)).session;
      return childStateOf(child, child.openTurn !== null);
    } catch (error) {
      if ((error as { code?: unknown }).code === "not-found") return undefined;
      throw error;
    }
  });
  if (problems.length === 0) return verify;
  return {
    ...verify,
    clean: false,
    problems: [
      ...verify.problems,
      ...problems.map(({ seq, code, message }) => ({
        where,
        ...(seq < firstSeq ? {} : { line: seq - firstSeq + 2 }),
        seq,
        code,
        message,
      })),
    ],
  };
}
