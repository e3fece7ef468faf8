// What `verify` checks of a parent's subagents (ARCHITECTURE.md §10): every child a result names
// exists, points back at that call (`spawnedBy`), and has no open turn; a child a closed call may
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
}

export interface SubagentProblem {
  /** Seq of the parent's `tool/result` for the call. */
  readonly seq: number;
  readonly code: "subagent-missing" | "subagent-mislinked" | "subagent-open" | "subagent-unreadable";
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
