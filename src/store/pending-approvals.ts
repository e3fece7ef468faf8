// listPendingApprovals: every tool call, across a store's sessions, that waits for a person — a
// decision on its approval, or an answer to its question — what `keelson approvals` prints and
// an approvals inbox shows. Each session is read
// the way an inspection reads it (read-only: no lock, no repair), so it works next to running
// writers; a log that cannot be read is skipped and named in `unreadable`. Works for any
// `SessionStore` (JSONL, PostgreSQL): it lists, then loads each session read-only.
import type { PendingApproval, PendingInput } from "../session/index.js";
import type { SessionStore } from "./types.js";

/** A pending approval and the session it waits in. */
export interface StoredApproval extends PendingApproval {
  readonly sessionId: string;
}

/** A pending question and the session it waits in. */
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
  for (const summary of await store.list()) {
    try {
      const { session } = await store.load(summary.id, { readOnly: true });
      for (const pending of session.pendingApprovals()) approvals.push({ sessionId: summary.id, ...pending });
      for (const pending of session.pendingInputs()) inputs.push({ sessionId: summary.id, ...pending });
    } catch (error) {
      unreadable.push({ sessionId: summary.id, error });
    }
  }
  const oldest = (a: StoredApproval | StoredInput, b: StoredApproval | StoredInput): number =>
    a.requestedAt - b.requestedAt || a.sessionId.localeCompare(b.sessionId);
  return { approvals: approvals.sort(oldest), inputs: inputs.sort(oldest), unreadable };
}
