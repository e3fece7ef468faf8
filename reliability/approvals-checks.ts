// The approvals suite's oracle: given a session's final log and the effects file (what really
// ran), no tool was lost or run twice. Per `effect` call of the session:
//   - it ran at most once (one line in the effects file), and only with a logged approving
//     decision that comes before its `tool/call` (a tool that needs approval never runs without
//     one); its call is on disk whenever it ran;
//   - at most one decision is logged for it;
//   - it has exactly one result: a successful result means it ran exactly once; a denial means
//     it never ran; an interrupted/aborted result (crash repair, a cancel) allows at most one run
//     (the run a kill cut short) — never a success without the run;
//   - nothing is left pending at the end; the log verifies.
// Returns what happened to each call, for the summary counts.
import { verifyLog } from "../src/reconstruct/index.js";
import type { EventDataMap, SessionEvent } from "../src/session/index.js";
import { check } from "./violation.js";

type Data<T extends keyof EventDataMap> = EventDataMap[T];

export function checkApprovalLog(
  events: readonly SessionEvent[],
  sessionId: string,
  effects: ReadonlyMap<string, number>,
): string[] {
  const report = verifyLog(events);
  check(report.ok, `${sessionId}: the log does not verify: ${JSON.stringify(report.issues.slice(0, 3))}`);
  const effectCalls = new Set<string>();
  const decisions = new Map<string, { seq: number; approve: boolean }[]>();
  const calls = new Map<string, number>();
  const results = new Map<string, Data<"tool/result">[]>();
  for (const e of events) {
    if (e.type === "assistant/message")
      for (const block of (e.data as Data<"assistant/message">).content)
        if (block.type === "tool-call" && block.name === "effect") effectCalls.add(block.callId);
    if (e.type === "approval/decision") {
      const d = e.data as Data<"approval/decision">;
      decisions.set(d.callId, [...(decisions.get(d.callId) ?? []), { seq: e.seq, approve: d.approve }]);
    }
    if (e.type === "tool/call") calls.set((e.data as Data<"tool/call">).callId, e.seq);
    if (e.type === "tool/result" && e.surfaceOp === "append") {
      const d = e.data as Data<"tool/result">;
      results.set(d.callId, [...(results.get(d.callId) ?? []), d]);
    }
  }
  for (const [key, n] of effects) {
    const [owner, callId] = key.split(" ");
    if (owner !== sessionId) continue;
    check(n === 1, `${sessionId}: ${callId} ran ${n} times (double run)`);
    check(effectCalls.has(callId!), `${sessionId}: ${callId} ran but is not an effect call of this log (lost)`);
  }
  const kinds: string[] = [];
  for (const callId of effectCalls) {
    const ran = effects.get(`${sessionId} ${callId}`) ?? 0;
    const decided = decisions.get(callId) ?? [];
    const answers = results.get(callId) ?? [];
    check(decided.length <= 1, `${sessionId}: ${callId} has ${decided.length} decisions`);
    check(answers.length === 1, `${sessionId}: ${callId} has ${answers.length} results (lost or pending)`);
    const decision = decided[0];
    const result = answers[0]!;
    if (ran > 0) {
      check(decision?.approve === true, `${sessionId}: ${callId} ran without an approving decision`);
      const callSeq = calls.get(callId);
      check(
        callSeq !== undefined && decision.seq < callSeq,
        `${sessionId}: ${callId} ran, but its call is not logged after its decision`,
      );
    }
    if (!result.isError) {
      check(ran === 1, `${sessionId}: ${callId} has a successful result but ran ${ran} times`);
      kinds.push("ran-once");
    } else if (result.error === "denied") {
      check(ran === 0, `${sessionId}: ${callId} was denied but ran`);
      kinds.push("denied");
    } else {
      check(
        result.error === "interrupted" || result.error === "aborted",
        `${sessionId}: ${callId} failed with ${result.error}`,
      );
      kinds.push(ran === 1 ? "cut-short-by-kill" : `closed-${result.error}`);
    }
  }
  return kinds;
}
