// What `verify` checks of a parent's subagents (ARCHITECTURE.md §10): every child a result names
// exists, points back at that call (`spawnedBy`), has no open turn, and holds the turn the
// result collected, ended as the result says; a child a closed call may
// have started (a crash, a cancel: no result names it) is checked the same way when it exists.
// The children are read through a loader the caller gives (a store, the inspector's source), so
// this stays a fold over the parent's log.
import { type SubagentLink, subagentLinks } from "./subagent-links.js";
import type { SessionEvent, SessionMeta } from "./types.js";
import { previewJson } from "../json/index.js";

/** What the check reads of a stored child; `undefined` from the loader: no such session. */
export interface ChildState {
  readonly meta: SessionMeta;
  /** Its last turn is open (a writer is running, or crashed and nobody repaired it yet). */
  readonly open: boolean;
  /** How each of its ended turns ended (`turn/end` `reason.kind` by turn); without it, not checked. */
  readonly turnEnds?: ReadonlyMap<number, string>;
}

/** The ChildState of a loaded child (`open`: its last turn is open, or the load says it needs repair). */
export function childStateOf(
  child: { readonly header: SessionMeta; readonly events: readonly SessionEvent[] },
  open: boolean,
): ChildState {
  const turnEnds = new Map<number, string>();
  for (const event of child.events)
    if (event.type === "turn/end") {
      const { turn, reason } = (event as SessionEvent<"turn/end">).data;
      turnEnds.set(turn, reason.kind);
    }
  return { meta: child.header, open, turnEnds };
}

export interface SubagentProblem {
  /** Seq of the parent's `tool/result` for the call. */
  readonly seq: number;
  readonly code:
    | "subagent-missing"
    | "subagent-mislinked"
    | "subagent-open"
    | "subagent-unreadable"
    | "subagent-turn-missing"
    | "subagent-turn-differs";
  readonly message: string;
  /** The child's session id. */
  readonly session: string;
}

/** The problems of `parent`'s subagents (none: every linked child exists, links back and ended). */
export async function checkSubagents(
  parent: { readonly id: string; readonly events: readonly SessionEvent[] },
  load: (id: string) => Promise<ChildState | undefined>,
): Promise<SubagentProblem[]> {
  const problems: SubagentProblem[] = [];
  for (const link of subagentLinks(parent.events, parent.id, { closed: true })) {
    let child: ChildState | undefined;
    try {
      child = await load(link.session);
    } catch (error) {
      problems.push(
        problem(
          link,
          "subagent-unreadable",
          `cannot be read: ${error instanceof Error ? error.message : String(error)}`,
        ),
      );
      continue;
    }
    if (child === undefined) {
      if (link.named) problems.push(problem(link, "subagent-missing", "is not in the store"));
      continue;
    }
    const by = child.meta.spawnedBy;
    if (by?.session !== parent.id || by.callId !== link.callId)
      problems.push(
        problem(
          link,
          "subagent-mislinked",
          `says it was spawned by ${by === undefined ? "nothing" : `${by.session} call ${previewJson(by.callId, 80)}`}, not ${parent.id} call ${previewJson(link.callId, 80)}`,
        ),
      );
    if (child.open)
      problems.push(
        problem(link, "subagent-open", "has an open turn: it did not end (repair it by resuming the parent)"),
      );
    // The turn the parent's result collected must be in the child's log, ended as the result says
    // (found from outside: a child cut down to its meta line was reported "ended").
    const ended = link.turn === undefined ? undefined : child.turnEnds?.get(link.turn);
    if (link.turn !== undefined && child.turnEnds !== undefined && ended === undefined)
      problems.push(
        problem(
          link,
          "subagent-turn-missing",
          `has no end of turn ${link.turn}, which the call's result collected (${child.turnEnds.size} ended turn(s) in its log): it was cut short or replaced`,
        ),
      );
    else if (link.reason !== undefined && ended !== undefined && ended !== link.reason)
      problems.push(
        problem(
          link,
          "subagent-turn-differs",
          `ended turn ${link.turn} ${previewJson(ended, 40)}, but the call's result says ${previewJson(link.reason, 40)}: its log was changed`,
        ),
      );
  }
  return problems;
}

function problem(link: SubagentLink, code: SubagentProblem["code"], what: string): SubagentProblem {
  return {
    seq: link.resultSeq,
    code,
    message: `subagent session ${link.session} of call ${link.callId} ${what}`,
    session: link.session,
  };
}
