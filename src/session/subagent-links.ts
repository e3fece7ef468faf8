// Subagents as the log links them (ARCHITECTURE.md §10, "Subagents are sessions"): a subagent's
// session id is derived from its parent's id and the tool call that started it, so a parent log
// names its children even when a crash left no result to say so; the result of a finished call
// says it too (`meta.subagent.session`), and the child's meta points back (`spawnedBy`). Pure
// reads; the loop starts children (src/loop) and the store checks they exist (src/store).
import { isSafeSessionId } from "./envelope.js";
import type { AnySessionEvent, SessionEvent } from "./types.js";

/**
 * The session id of the subagent started by tool call `callId` of session `parent`:
 * `<parent>.<callId>`, so a descendant's id starts with its ancestor's id and a dot. Undefined
 * when that is not a safe session id (over 128 characters: subagents nested too deep).
 */
export function subagentSessionId(parent: string, callId: string): string | undefined {
  const id = `${parent}.${callId}`;
  return isSafeSessionId(id) ? id : undefined;
}

/** A tool call of a log that started a subagent, as its result says (or may say). */
export interface SubagentLink {
  readonly callId: string;
  /** The child's session id. */
  readonly session: string;
  /** Seq of the call's `tool/result`. */
  readonly resultSeq: number;
  /**
   * True when the result names the child (`meta.subagent.session`): the child ran. False for a
   * result that closed the call without one (crash repair, a cancel): a child may exist under
   * the derived id — the caller checks.
   */
  readonly named: boolean;
  /** The child's turn the result collected, and how it ended (`reason.kind`), when the result says. */
  readonly turn?: number;
  readonly reason?: string;
}

/** `meta.subagent.session` of a tool result, when it is a string. */
export function subagentOfResult(event: SessionEvent<"tool/result">): string | undefined {
  const sub = event.data.meta?.subagent;
  if (typeof sub !== "object" || sub === null || Array.isArray(sub)) return undefined;
  const session = (sub as { session?: unknown }).session;
  return typeof session === "string" ? session : undefined;
}

/**
 * The subagent links of a log: every appended `tool/result` that names a child session, and,
 * with `closed: true`, every error result closing a call without running it to a result
 * (`error` `interrupted` or `aborted`) under the derived id — children that may exist.
 */
export function subagentLinks(
  events: readonly SessionEvent[],
  parent: string,
  options: { closed?: boolean } = {},
): SubagentLink[] {
  const out: SubagentLink[] = [];
  for (const event of events as readonly AnySessionEvent[]) {
    if (event.type !== "tool/result" || event.surfaceOp !== "append") continue;
    const named = subagentOfResult(event);
    if (named !== undefined) {
      const { turn, reason } = (event.data.meta?.subagent ?? {}) as { turn?: unknown; reason?: unknown }; // an object: named
      out.push({
        callId: event.data.callId,
        session: named,
        resultSeq: event.seq,
        named: true,
        ...(Number.isSafeInteger(turn) ? { turn: turn as number } : {}),
        ...(typeof reason === "string" ? { reason } : {}),
      });
      continue;
    }
    if (options.closed !== true || (event.data.error !== "interrupted" && event.data.error !== "aborted")) continue;
    const derived = subagentSessionId(parent, event.data.callId);
    if (derived !== undefined)
      out.push({ callId: event.data.callId, session: derived, resultSeq: event.seq, named: false });
  }
  return out;
}
