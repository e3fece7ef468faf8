// The properties one cancellation trial must hold, as a list of problems (empty = held): every
// turn closed with the reason its input implies (warm-ups and the next turn `completed`, the
// cancelled one `aborted{reason}` / `disposed`); every tool call answered in the derived history,
// owed ones with aborted results; no degraded or stale prefix ever cached, logged or sent — every
// request of every instance starts with the full prefix; a step cancelled before dispatch sent
// nothing and a paused stream left no partial answer; the log verifies and reconstructs exactly
// the requests the model received; a disposed agent's stored log is its in-memory log.
import { canonicalJson, type JsonValue } from "../src/json/index.js";
import { isLoopBuilt, loggedPartOf, type TurnOutcome } from "../src/loop/index.js";
import { reconstructRequests, verifyLog } from "../src/reconstruct/index.js";
import { isPairingBalanced, type SessionEvent, type TurnEndReason } from "../src/session/index.js";
import type { Settled, TrialRun } from "./cancellation-run.js";
import {
  answerMark,
  CANCEL_REASON,
  cancelTurn,
  DEGRADED,
  FULL_PREFIX,
  INJECTED,
  positionOf,
} from "./cancellation-plan.js";

const COMPLETED: TurnEndReason = { kind: "completed" };
const same = (a: unknown, b: unknown): boolean => canonicalJson(a as JsonValue) === canonicalJson(b as JsonValue);
const show = (value: unknown): string => JSON.stringify(value);

/** Points where the cancel lands before the chosen step's request is handed to the provider. */
const BEFORE_DISPATCH = new Set(["queued", "prompt-submit", "prefix", "pre-step", "request"]);

function eventsOf<T extends SessionEvent["type"]>(events: readonly SessionEvent[], type: T): SessionEvent<T>[] {
  return events.filter((e): e is SessionEvent<T> => e.type === type);
}

/** What `send` of the cancelled turn must settle with, and the turn/end it logs (none when disposed before it started). */
function expectedCancel(run: TrialRun): { settled: Settled; logged: TurnEndReason | undefined } {
  const { point, action } = run.plan;
  if (action !== "cancel" && point === "queued") return { settled: { rejected: "disposed" }, logged: undefined };
  // Acting as turn/end is logged is too late: the turn has completed.
  const reason: TurnEndReason =
    point === "turn-end"
      ? COMPLETED
      : action === "cancel"
        ? { kind: "aborted", reason: CANCEL_REASON }
        : { kind: "disposed" };
  // With a store, a cancel or dispose never makes a flush fail: the turn is saved.
  const saved = run.plan.store ? { saved: true } : {};
  // `text` is not an enumerable field of an outcome: canonicalJson compares without it.
  const outcome = { turn: cancelTurn(run.plan), reason, ...saved } as Omit<TurnOutcome, "text"> as TurnOutcome;
  return { settled: { outcome }, logged: reason };
}

/** An inject that arrived as `turn/end` was logged runs in a one-shot turn of its own (after a cancel; a dispose rejects it). */
const injectTurn = (run: TrialRun): boolean =>
  run.plan.inject && run.plan.point === "turn-end" && run.plan.action === "cancel";

export function checkTrial(run: TrialRun): string[] {
  const problems = [...run.problems];
  const { plan, events } = run;
  const T = cancelTurn(plan);

  for (const issue of verifyLog(events).issues)
    problems.push(`verifyLog ${issue.code} at seq ${issue.seq ?? "-"}: ${issue.message}`);
  if (events.at(-1)?.type !== "turn/end") problems.push(`the log ends with ${events.at(-1)?.type}, not turn/end`);

  // Turn ends: logged, and as send() reported them.
  const cancel = expectedCancel(run);
  const expectedEnds = [
    ...run.warm.map(() => COMPLETED),
    ...(cancel.logged === undefined ? [] : [cancel.logged]),
    ...(injectTurn(run) ? [COMPLETED] : []),
    COMPLETED,
  ];
  const ends = eventsOf(events, "turn/end").map((e) => e.data.reason);
  if (!same(ends, expectedEnds)) problems.push(`turn ends ${show(ends)}, expected ${show(expectedEnds)}`);
  if (run.warm.some((o) => !same(o.reason, COMPLETED)))
    problems.push(`a warm-up turn did not complete: ${show(run.warm)}`);
  if (!same(run.cancelled, cancel.settled))
    problems.push(`the cancelled send() settled ${show(run.cancelled)}, expected ${show(cancel.settled)}`);
  if (!("outcome" in run.after) || !same(run.after.outcome.reason, COMPLETED))
    problems.push(`the next turn did not complete: ${show(run.after)}`);
  // (After a cancel at turn/end with an inject, the inject's own turn may still be running: `idled` covers it.)
  const status = plan.action === "cancel" ? "idle" : "disposed";
  if (run.status !== status && !injectTurn(run))
    problems.push(`status after the ${plan.action} is ${run.status}, expected ${status}`);
  if (!run.idled) problems.push("whenIdle() asked for at the cancel never resolved");

  // An inject that arrived with the cancel: logged once, in the cancelled turn, iff it resolved.
  if (plan.inject) {
    const logged = eventsOf(events, "context/message").filter((e) => JSON.stringify(e.data.content).includes(INJECTED));
    const inTurn = injectTurn(run) ? T + 1 : T;
    const start = eventsOf(events, "turn/start").find((e) => e.data.turn === inTurn)?.seq ?? Number.POSITIVE_INFINITY;
    const end = eventsOf(events, "turn/end").find((e) => e.data.turn === inTurn)?.seq ?? Number.NEGATIVE_INFINITY;
    const placed = logged.length === 1 && logged[0]!.seq > start && logged[0]!.seq < end;
    if (run.injected === "logged" ? !placed : run.injected !== "disposed" || logged.length !== 0)
      problems.push(`inject ${run.injected}, logged ${logged.length} times${placed ? ` in turn ${inTurn}` : ""}`);
  }

  // Tool pairing: every call answered; in the cancelled turn, owed calls answered `aborted`.
  if (!isPairingBalanced(run.history))
    problems.push("the derived history has an unanswered tool call or an orphan result");
  const results = eventsOf(events, "tool/result").filter((e) => e.data.turn === T);
  const bad = results.filter((e) => e.data.isError && e.data.error !== "aborted");
  if (bad.length > 0)
    problems.push(`tool results in the cancelled turn failed other than aborted: ${show(bad.map((e) => e.data))}`);
  if (
    (plan.point === "tool-exec" || plan.point === "between-tools") &&
    !results.some((e) => e.data.error === "aborted")
  )
    problems.push(`no owed tool call got an aborted result`);

  // The prefix: only the full composition, on every header and at the head of every request.
  const rebuilt = reconstructRequests(events);
  for (const r of rebuilt)
    if (!same(r.header.messagePrefix, FULL_PREFIX))
      problems.push(
        `turn ${r.turn} step ${r.step}: the logged prefix is not the full one: ${show(r.header.messagePrefix).slice(0, 100)}`,
      );
  for (const [i, request] of run.requests.entries())
    if (!same(request.messages.slice(0, FULL_PREFIX.length), FULL_PREFIX))
      problems.push(`request ${i} does not start with the full prefix`);
  if (
    JSON.stringify(events).includes(DEGRADED) ||
    run.requests.some((r) => JSON.stringify(r.messages).includes(DEGRADED))
  )
    problems.push("the degraded prefix reached the log or a request");
  // One full header per instance that sent anything: `initial` for the first, `resume` after.
  const bounds = [...run.instanceStarts, Number.POSITIVE_INFINITY];
  const dispatching = run.instanceStarts.filter((start, i) =>
    rebuilt.some((r) => r.stepStartSeq >= start && r.stepStartSeq < bounds[i + 1]!),
  ).length;
  const snapshots = eventsOf(events, "request/header").map((e) => e.data.reason);
  const expectedSnapshots = Array.from({ length: dispatching }, (_, i) => (i === 0 ? "initial" : "resume"));
  if (!same(snapshots, expectedSnapshots))
    problems.push(`header snapshots ${show(snapshots)}, expected ${show(expectedSnapshots)}`);
  if (plan.point === "prefix" && run.compositions !== dispatching + 1)
    problems.push(
      `the prefix composed ${run.compositions} times, expected ${dispatching + 1} (once per instance that sent, plus the discarded one)`,
    );

  // Requests: exactly what the log reconstructs, loop-built.
  if (
    !same(
      rebuilt.map((r) => r.request),
      run.requests.map(loggedPartOf),
    )
  )
    problems.push(`the ${run.requests.length} requests sent differ from the ${rebuilt.length} the log reconstructs`);
  if (run.requests.some((r) => !isLoopBuilt(r)))
    problems.push("a request reached the model that the loop did not build");

  // The cancelled step: nothing sent before dispatch; no partial answer after a paused stream.
  const stepRequests = run.requests.filter((r) => {
    const at = positionOf(r.messages);
    return at?.turn === T && at.step === plan.step;
  });
  if (BEFORE_DISPATCH.has(plan.point) && stepRequests.length !== 0)
    problems.push(`the cancel landed before dispatch, yet step ${plan.step} sent ${stepRequests.length} requests`);
  if (!BEFORE_DISPATCH.has(plan.point) && stepRequests.length !== 1)
    problems.push(`step ${plan.step} sent ${stepRequests.length} requests, expected 1`);
  if (plan.point === "prefix" && run.requests.some((r) => positionOf(r.messages)?.turn === T))
    problems.push("a request was sent during the cancelled composition's turn");
  if (plan.point === "request") {
    const end = eventsOf(events, "step/end").find((e) => e.data.turn === T && e.data.step === plan.step);
    if (end?.data.dispatched !== false) problems.push(`step/end of the undispatched step is ${show(end?.data)}`);
  }
  if (plan.point === "retry-wait") {
    const retries = eventsOf(events, "llm/retry").map((e) => e.data);
    if (!same(retries, [{ turn: T, step: plan.step, attempt: 1, code: "overloaded", delayMs: 1000 }]))
      problems.push(`llm/retry events ${show(retries)}`);
  }
  if (plan.point === "mid-stream") {
    if (JSON.stringify(events).includes(answerMark(T, plan.step)))
      problems.push("the paused stream's partial answer reached the log");
    if (eventsOf(events, "assistant/message").some((e) => e.data.turn === T && e.data.step === plan.step))
      problems.push("the paused step logged an assistant message");
  }

  // Dispose flushed: the stored log the next instance loaded is the disposed instance's log.
  if (plan.action !== "cancel" && !same(events.slice(0, run.cancelledEvents.length), run.cancelledEvents))
    problems.push("the stored log differs from the disposed instance's in-memory log");
  return [...new Set(problems)];
}
