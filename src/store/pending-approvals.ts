// listPendingApprovals: every tool call, across a store's sessions, that waits for a person — a
// decision on its approval, or an answer to its question — what `keelson approvals` prints and
// an approvals inbox shows. Each session is read
// the way an inspection reads it (read-only: no lock, no repair), so it works next to running
// writers; a log that cannot be read is skipped and named in `unreadable`. Works for any
// `SessionStore` (JSONL, PostgreSQL): it lists, then loads each session read-only.
import { type PendingApproval, type PendingInput, type SessionMeta, subagentSessionId } from "../session/index.js";
import type { SessionStore } from "./types.js";

/**
 * A pending approval and the session it waits in. A subagent's carries `path`: the session ids
 * from its top-level ancestor down to `sessionId` (decide it through that ancestor, naming
 * `sessionId` as the decision's `session`, and the ancestors continue too).
 */
export interface StoredApproval extends PendingApproval {
  readonly sessionId: string;
}

/** A pending question and the session it waits in (`path` as for `StoredApproval`). */
export interface StoredInput extends PendingInput {
  readonly sessionId: string;
}

export interface PendingApprovalsList {
  /** Oldest request first. */
  readonly approvals: readonly StoredApproval[];
  /** Unanswered questions (`input/request`), oldest first. */
  readonly inputs: readonly StoredInput[];
  /** Sessions whose log could not be read (corrupt, newer, gone meanwhile), with why. */
  readonly unreadable: readonly { readonly sessionId: string; readonly error: unknown }[];
}

/** Every pending approval of `store`'s sessions (each session loaded read-only). */
export async function listPendingApprovals(store: SessionStore): Promise<PendingApprovalsList> {
  const approvals: StoredApproval[] = [];
  const inputs: StoredInput[] = [];
  const unreadable: { sessionId: string; error: unknown }[] = [];
  const metas = new Map<string, SessionMeta>();
  for (const summary of await store.list()) {
    try {
      const { session } = await store.load(summary.id, { readOnly: true });
      metas.set(summary.id, session.header);
      for (const pending of session.pendingApprovals()) approvals.push({ sessionId: summary.id, ...pending });
      for (const pending of session.pendingInputs()) inputs.push({ sessionId: summary.id, ...pending });
    } catch (error) {
      unreadable.push({ sessionId: summary.id, error });
    }
  }
  const placed = <T extends StoredApproval | StoredInput>(item: T): T => {
    const path = pathOf(metas, item.sessionId);
    const child = "callId" in item ? subagentSessionId(item.sessionId, item.callId) : undefined;
    return {
      ...item,
      ...(path.length > 1 ? { path } : {}),
      ...(child !== undefined && metas.get(child)?.spawnedBy !== undefined ? { subagent: child } : {}),
    };
  };
  const oldest = (a: StoredApproval | StoredInput, b: StoredApproval | StoredInput): number =>
    a.requestedAt - b.requestedAt || a.sessionId.localeCompare(b.sessionId);
  return { approvals: approvals.map(placed).sort(oldest), inputs: inputs.map(placed).sort(oldest), unreadable };
}

/** The session ids from `id`'s top-level ancestor (by `spawnedBy`) down to `id`. */
function pathOf(metas: ReadonlyMap<string, SessionMeta>, id: string): string[] {
  const path = [id];
  for (let at = metas.get(id)?.spawnedBy?.session; at !== undefined && !path.includes(at); ) {
    path.unshift(at);
    at = metas.get(at)?.spawnedBy?.session;
  }
  return path;
}
