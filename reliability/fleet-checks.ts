// The fleet suite's per-session checks, after every queued turn finished: the stored log
// verifies clean (structure and the reconstruction of every request); every turn ran exactly
// once — `done` and `interrupted` (its worker died with the prompt logged) each have their
// prompt in the log exactly once, in queue order, and no prompt is there that was not queued; no
// turn failed the loop's invariant (every request equal to the log's reconstruction, checked by
// the workers: the profiles run with invariants on). No turn ends `failed`: the suite's faults
// (a killed worker, terminated connections) are transient — a flush that loses its connection is
// retried by the store while the lease holds (issue #20 F19) — and its echo profile never errs.
import type { TurnRecord } from "../src/fleet/index.js";
import { verifyLog } from "../src/reconstruct/index.js";
import type { SessionEvent } from "../src/session/index.js";

/** A session's queued prompts in queue order, with their records. */
export interface SessionTurns {
  readonly sessionId: string;
  readonly turns: readonly TurnRecord[];
}

const promptsOf = (events: readonly SessionEvent[]): string[] =>
  events
    .filter((e) => e.type === "user/message")
    .map((e) => (e.data as { content: { type: string; text?: string }[] }).content.map((b) => b.text ?? "").join(""));

/** Problems found in one session (empty: it passed), and the kinds of what happened to its turns. */
export function checkSession(
  expected: SessionTurns,
  events: readonly SessionEvent[],
): { problems: string[]; kinds: string[]; requests: number } {
  const problems: string[] = [];
  const kinds: string[] = [];
  const report = verifyLog(events);
  for (const issue of report.issues) problems.push(`verify: ${issue.code}: ${issue.message}`);
  const logged = promptsOf(events);
  const queued = expected.turns.map((t) => t.prompt);
  for (const turn of expected.turns) {
    kinds.push(turn.status, ...(turn.attempts > 1 ? [`claimed ${turn.attempts}×`] : []));
    const times = logged.filter((p) => p === turn.prompt).length;
    if (turn.status === "queued" || turn.status === "running")
      problems.push(`turn ${turn.id} (${turn.prompt}) is still ${turn.status}`);
    else if (turn.status === "failed" && turn.outcome === undefined) {
      problems.push(`turn ${turn.id} (${turn.prompt}) never ran: ${turn.error ?? "no error recorded"}`);
    } else if (turn.status === "failed")
      problems.push(
        `turn ${turn.id} (${turn.prompt}) failed under transient faults: ${turn.error ?? "no error recorded"}`,
      );
    else if (times !== 1)
      problems.push(`turn ${turn.id} (${turn.prompt}) is ${turn.status} but its prompt is in the log ${times} times`);
    if (turn.error?.includes("invariant") === true)
      problems.push(`turn ${turn.id}: the request invariant failed: ${turn.error}`);
  }
  const strangers = logged.filter((p) => !queued.includes(p));
  if (strangers.length > 0)
    problems.push(`prompts in the log that were never queued here: ${JSON.stringify(strangers)}`);
  const order = logged.filter((p) => queued.includes(p));
  const expectedOrder = queued.filter((p) => order.includes(p));
  if (JSON.stringify(order) !== JSON.stringify(expectedOrder))
    problems.push(`prompts out of queue order: ${JSON.stringify(order)}`);
  const turnStarts = events.filter((e) => e.type === "turn/start").length;
  if (turnStarts !== logged.length) problems.push(`${turnStarts} turns for ${logged.length} prompts`);
  return { problems, kinds, requests: report.requests };
}
