// The sessions list: one row per session (turns, last prompt, open turn, pending approvals) and the tree
// (each parent's forks and subagents), the same for every source.
import type { Session, SessionEvent } from "../session/index.js";
import type { ListedSession, SessionsPayload } from "./types.js";
import { contentText } from "../messages/index.js";

/** The list row of a readable session. */
export function listedSession(session: Session, updatedAt: number): ListedSession {
  const h = session.header;
  const events = session.events;
  const pending = session.pendingApprovals().length;
  let last: SessionEvent<"user/message"> | undefined;
  for (let i = events.length - 1; i >= 0 && last === undefined; i--)
    if (events[i]!.type === "user/message") last = events[i] as SessionEvent<"user/message">;
  return {
    kind: "session",
    id: session.id,
    createdAt: h.createdAt,
    updatedAt,
    ...(h.cwd === undefined ? {} : { cwd: h.cwd }),
    ...(h.parentSession === undefined ? {} : { parentSession: h.parentSession }),
    ...(h.spawnedBy === undefined ? {} : { spawnedBy: { session: h.spawnedBy.session, callId: h.spawnedBy.callId } }),
    turns: session.lastTurn,
    events: events.length,
    ...(last === undefined ? {} : { lastPrompt: contentText(last.data.content) }),
    open: session.openTurn !== null,
    ...(pending === 0 ? {} : { pendingApprovals: pending }),
  };
}

/** Sorts oldest first (unreadable logs last) and adds each session's forks (`children`) and subagents. */
export function sessionsPayload(source: string, rows: readonly ListedSession[]): SessionsPayload {
  const children = new Map<string, string[]>();
  const subagents = new Map<string, string[]>();
  const add = (map: Map<string, string[]>, parent: string, id: string): void => {
    map.set(parent, [...(map.get(parent) ?? []), id]);
  };
  for (const row of rows) {
    if (row.kind !== "session") continue;
    if (row.parentSession !== undefined) add(children, row.parentSession, row.id);
    if (row.spawnedBy !== undefined) add(subagents, row.spawnedBy.session, row.id);
  }
  const created = (r: ListedSession): number => (r.kind === "session" ? r.createdAt : Number.MAX_SAFE_INTEGER);
  const sorted = [...rows].sort((a, b) => created(a) - created(b));
  return {
    source,
    sessions: sorted.map((r) =>
      r.kind !== "session"
        ? r
        : {
            ...r,
            ...(children.has(r.id) ? { children: children.get(r.id)! } : {}),
            ...(subagents.has(r.id) ? { subagents: subagents.get(r.id)! } : {}),
          },
    ),
  };
}
