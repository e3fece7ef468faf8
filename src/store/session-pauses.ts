// sessionPauses: what one session waits for, its subagents included — its own pending approvals
// and questions, then every descendant's (each with `path`, from this session down to the one
// that asks), found through the held calls: a pending approval whose derived child session
// (`<session>.<callId>`) exists and names it in `spawnedBy` stands for that child's pause (it
// is marked `subagent`) and the child is read, recursively. What `agent.pendingApprovals()`,
// `host.pending(id)` and `keelson approvals <session>` list, so that an answer to a child's
// request is recognised as pending through its parent (docs/decisions/0025).
import { isKeelsonError } from "../errors/index.js";
import { type PendingApproval, type PendingInput, type Session, subagentSessionId } from "../session/index.js";
import type { SessionStore } from "./types.js";

/** A session's pending approvals and questions: its own first (model order), then its descendants'. */
export interface SessionPauses {
  readonly approvals: readonly PendingApproval[];
  readonly inputs: readonly PendingInput[];
}

/** Reads a session by id (read-only), or undefined when there is none. */
export type SessionReader = (id: string) => Promise<Session | undefined>;

/** `session`'s pauses and its subagents' (read with `read`). A child that cannot be read is left out. */
export async function sessionPauses(session: Session, read: SessionReader): Promise<SessionPauses> {
  const approvals: PendingApproval[] = [];
  const inputs: PendingInput[] = [];
  const visit = async (at: Session, path: readonly string[] | undefined): Promise<void> => {
    const placed = path === undefined ? {} : { path };
    const children: { readonly session: Session; readonly path: readonly string[] }[] = [];
    for (const request of at.pendingApprovals()) {
      const child = await childOf(at, request.callId, read);
      approvals.push({ ...request, ...placed, ...(child === undefined ? {} : { subagent: child.id }) });
      if (child !== undefined) children.push({ session: child, path: [...(path ?? [at.id]), child.id] });
    }
    for (const request of at.pendingInputs()) inputs.push({ ...request, ...placed });
    for (const child of children) await visit(child.session, child.path);
  };
  await visit(session, undefined);
  return { approvals, inputs };
}

/** The subagent session started by `parent`'s call `callId`, when it exists and says so. */
async function childOf(parent: Session, callId: string, read: SessionReader): Promise<Session | undefined> {
  const id = subagentSessionId(parent.id, callId);
  if (id === undefined) return undefined;
  let child: Session | undefined;
  try {
    child = await read(id);
  } catch {
    return undefined; // unreadable now: its requests are not listed (keelson approvals names it)
  }
  const by = child?.header.spawnedBy;
  return by?.session === parent.id && by.callId === callId ? child : undefined;
}

/** A `SessionReader` over a store: read-only loads (no lock, no repair), `not-found` as undefined. */
export function storeReader(store: SessionStore): SessionReader {
  return async (id) => {
    try {
      return (await store.load(id, { readOnly: true })).session;
    } catch (error) {
      if (isKeelsonError(error, "not-found")) return undefined;
      throw error;
    }
  };
}
