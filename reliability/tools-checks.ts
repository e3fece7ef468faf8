// The checks every call of the tools suite gets, whatever it was asked: it answered (no hang,
// no death of the child), within CALL_TIMEOUT_MS without needing the timeout, without blocking
// the event loop or growing memory past the bounds, with bounded output, with the expected kind
// of result, never showing content from outside the workspace, and leaving the outside tree
// exactly as it was (tools-protocol.ts holds the bounds).
import type { Expect } from "./tools-cases.js";
import {
  CALL_TIMEOUT_MS,
  MAX_LOOP_GAP_MS,
  MAX_RSS_GROWTH_MB,
  OUTPUT_CAP,
  type ToolAnswer,
  WATCHDOG_MS,
} from "./tools-protocol.js";
import type { CallResult } from "./tools-runner.js";
import type { HostileWorkspace } from "./tools-workspace.js";
import { check } from "./violation.js";

const preview = (text: string): string => JSON.stringify(text.length > 200 ? `${text.slice(0, 200)}…` : text);

/** The answer, once it is known to have come back in bounds; throws a Violation otherwise. */
export function checkAnswered(result: CallResult): ToolAnswer {
  check(
    result.kind !== "hung",
    `no answer after ${Math.round(result.kind === "hung" ? result.ms : 0)} ms (watchdog ${WATCHDOG_MS} ms): the call ignored its ${CALL_TIMEOUT_MS} ms abort, or blocked the event loop`,
  );
  check(result.kind === "answer", result.kind === "died" ? result.detail : "no answer");
  const { answer } = result;
  check(
    answer.error !== "timeout" && answer.error !== "aborted",
    `did not finish within ${CALL_TIMEOUT_MS} ms: stopped by the ${answer.error} after ${Math.round(answer.elapsedMs)} ms`,
  );
  check(
    answer.maxGapMs < MAX_LOOP_GAP_MS,
    `blocked the event loop for ${Math.round(answer.maxGapMs)} ms (bound ${MAX_LOOP_GAP_MS} ms)`,
  );
  check(
    answer.rssGrowthMb < MAX_RSS_GROWTH_MB,
    `resident memory grew by ${Math.round(answer.rssGrowthMb)} MB during the call (bound ${MAX_RSS_GROWTH_MB} MB)`,
  );
  check(answer.text.length <= OUTPUT_CAP + 1_000, `an answer of ${answer.text.length} characters is not capped`);
  return answer;
}

/** The kind of result the case asked for. */
export function checkExpected(answer: ToolAnswer, expect: Expect): void {
  if (expect === "error") check(answer.isError, `answered instead of refusing: ${preview(answer.text)}`);
  if (expect === "answer") check(!answer.isError, `refused: ${preview(answer.text)}`);
}

/** Nothing from outside the workspace was shown or changed. */
export async function checkNothingEscaped(
  answer: ToolAnswer,
  ws: HostileWorkspace,
  outsideBefore: ReadonlyMap<string, string>,
): Promise<void> {
  check(!answer.text.includes(ws.secret), `returned content of a file outside the workspace: ${preview(answer.text)}`);
  const now = await ws.snapshotOutside();
  const changed = [...new Set([...outsideBefore.keys(), ...now.keys()])].filter(
    (path) => outsideBefore.get(path) !== now.get(path),
  );
  check(
    changed.length === 0,
    `changed the outside directory: ${changed.map((path) => `${path}: ${outsideBefore.get(path) ?? "absent"} → ${now.get(path) ?? "absent"}`).join("; ")}`,
  );
}
