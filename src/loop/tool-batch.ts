// The tool calls of a step, in model order, with approvals (ARCHITECTURE.md §4 step 8, §10):
// a call whose tool `needsApproval` gets an `approval/request`; a live decider (`approval/ask`,
// the agent's `approver`) may answer at once (`approval/decision`, then the call runs or is
// denied); when none answers, that call and every later one wait — the later ones that need
// approval are requested too — and the step ends with them held (the turn ends
// `awaiting-approval`). A call whose tool asks a question (`question`, e.g. `ask_user`) gets an
// `input/request` the same way: a live answerer (`input/ask`, the agent's `answerer`) may reply
// (`input/response`), else the turn ends `awaiting-input`. A later turn runs the held calls
// (`runHeldCalls`) once each is decided and answered. A question asked *while* a call runs
// (`ToolContext.ask`: an MCP server's elicitation) is logged with the call's id as `callId`; with
// no live answer the call is suspended — its attempt's output discarded, no result logged — and
// the turn ends `awaiting-input`; once answered it runs again, its questions answered from the log.
// Every call is logged `tool/call` → (flush before a tool that is not read-only) → `tool/result`;
// post-tool context is appended after the batch's last result. Adjacent subagent calls run
// together instead (subagent-batch.ts; docs/decisions/0025), each call logged with its result in
// model order; a child waiting for a person holds its call behind an `approval/request`.
import type { JsonValue } from "../json/index.js";
import type { AssistantContent, UserContent } from "../messages/index.js";
import type { InputState, PendingApproval, PendingInput } from "../session/index.js";
import {
  type AbortState,
  type ApprovalContext,
  approvalNeed,
  capToolResult,
  type ExecuteToolCallInput,
  executeToolCall,
  questionOf,
  type ToolCallOutcome,
} from "../tools/index.js";
import { type LoggedAnswer, type LoggedDecision, normalizeDecision, refusalOf } from "./approval-decision.js";
import type { ApprovalDecision } from "./approval-types.js";
import { isSubagentCall, runSubagentGroup } from "./subagent-batch.js";
import { answerLive, askDuring, pending } from "./live-answers.js";
import { commit, flushDue, type TurnContext, type TurnState } from "./turn-state.js";

/** One call as the model made it (`arguments`: its JSON text), naming the step that made it. */
interface Call {
  readonly turn: number;
  readonly step: number;
  readonly callId: string;
  readonly name: string;
  readonly arguments: string;
  /** A held call's approval (already decided when it runs). */
  readonly approval?: { readonly decision?: LoggedDecision };
  /** A held call's question (already answered when it runs). */
  readonly input?: { readonly response?: LoggedAnswer };
  /** A suspended call's questions asked while it ran (its `tool/call` is logged already). */
  readonly asked?: readonly InputState[];
}

/** What `dispatch` returns for a call suspended by a question nobody answered yet. */
const SUSPENDED = Symbol("suspended");

/**
 * Runs a step's calls; gives how many tool calls the answer made (0: no tools, the turn may end) —
 * at once, without a promise, for an answer that made none.
 */
export function runTools(
  ctx: TurnContext,
  turn: number,
  step: number,
  content: readonly AssistantContent[],
  state: TurnState,
  abort: AbortState,
): number | Promise<number> {
  const calls: Call[] = [];
  for (const block of content)
    if (block.type === "tool-call")
      calls.push({ turn, step, callId: block.callId, name: block.name, arguments: block.arguments });
  if (calls.length === 0) return 0;
  return runCalls(ctx, state, calls, abort).then(() => calls.length);
}

/**
 * Runs the calls held by an earlier step, in model order, once every approval is decided: each
 * as its decision says; one that was never asked about (it waited behind another, or the pause
 * came from a dispose or a crash) is checked now, and may pause the turn again. Logged outside
 * any step, naming the step that made the call.
 */
export async function runHeldCalls(ctx: TurnContext, state: TurnState, abort: AbortState): Promise<void> {
  await runCalls(ctx, state, ctx.session.waitingCalls(), abort);
}

/**
 * The calls in model order: ask about each that needs approval and has none yet; run or deny it
 * as decided; pause (requesting every later undecided one together) when nobody answers. Stops
 * at an abort: the closers close the rest.
 */
async function runCalls(ctx: TurnContext, state: TurnState, calls: readonly Call[], abort: AbortState): Promise<void> {
  const extra: (readonly UserContent[])[] = [];
  for (let i = 0; i < calls.length; i++) {
    if (abort.aborted) return; // the undispatched rest get synthetic aborted results (closeOpenStep)
    const call = calls[i]!;
    if (call.asked !== undefined) {
      // Suspended by a question asked while it ran: it runs again once every such question is answered.
      if (call.asked.some((q) => q.response === undefined)) {
        state.awaiting = true;
        return;
      }
      const outcome = await dispatch(ctx, state, call, call.approval?.decision, abort, call.input?.response?.value);
      if (outcome === SUSPENDED) return pause(ctx, state, calls.slice(i + 1), extra);
      if (outcome.additionalContext !== undefined) extra.push(outcome.additionalContext);
      continue;
    }
    let decision = call.approval?.decision;
    if (call.approval !== undefined && decision === undefined) {
      state.awaiting = true; // never run an undecided call (the caller runs held calls only once all are decided)
      return;
    }
    const asking = call.approval === undefined ? needsApproval(ctx, call) : undefined;
    const reason = asking === undefined ? undefined : await asking;
    if (reason !== undefined) {
      const request = logRequest(ctx, call, reason);
      decision = await askLive(ctx, request, abort.signal);
      if (abort.aborted) return;
      if (decision === undefined) return pause(ctx, state, calls.slice(i + 1), extra);
      ctx.session.append("approval/decision", decision);
    }
    // The question comes after the approval: a denied call asks nothing.
    let answer = call.input?.response;
    if (call.input !== undefined && answer === undefined) {
      state.awaiting = true; // never run an unanswered call
      return;
    }
    const questioning = call.input === undefined && decision?.approve !== false ? askedBy(ctx, call) : undefined;
    const question = questioning === undefined ? undefined : await questioning;
    if (question !== undefined) {
      const request = logQuestion(ctx, call, question);
      answer = await answerLive(ctx, request, abort.signal);
      if (abort.aborted) return;
      if (answer === undefined) return pause(ctx, state, calls.slice(i + 1), extra);
      ctx.session.append("input/response", answer);
    }
    if (decision?.approve !== false && isSubagentCall(ctx, call.name)) {
      const end = await subagentRunEnd(ctx, calls, i);
      const paused = await runSubagents(ctx, state, calls.slice(i, end), decision, extra, abort.signal);
      if (paused !== undefined) return pause(ctx, state, calls.slice(i + paused.at + 1), extra, paused.proxies);
      if (abort.aborted) return;
      i = end - 1;
      continue;
    }
    const outcome = await dispatch(ctx, state, call, decision, abort, answer?.value);
    if (outcome === SUSPENDED) return pause(ctx, state, calls.slice(i + 1), extra);
    if (outcome.additionalContext !== undefined) extra.push(outcome.additionalContext);
  }
  appendContext(ctx, extra);
}

/** The end (exclusive) of the run of subagent calls at `start`: the next ones that need no approval or answer join it. */
async function subagentRunEnd(ctx: TurnContext, calls: readonly Call[], start: number): Promise<number> {
  let end = start + 1;
  while (end < calls.length) {
    const next = calls[end]!;
    if (!isSubagentCall(ctx, next.name) || next.approval !== undefined || next.input !== undefined) break;
    if ((await needsApproval(ctx, next)) !== undefined || (await askedBy(ctx, next)) !== undefined) break;
    end++;
  }
  return end;
}

/**
 * Runs a run of subagent calls together (subagent-batch.ts) and logs each call and result in
 * model order. At the first call whose child waits for a person, logs an `approval/request` for
 * it (the subagent's pause: decided once the child is continued) and returns where it stopped,
 * with the pause reasons of the later calls of the run whose children wait too — the caller
 * holds them. A call that already has an approval (decided) cannot pause again: its result says
 * the child still waits.
 */
async function runSubagents(
  ctx: TurnContext,
  state: TurnState,
  calls: readonly Call[],
  decision: LoggedDecision | undefined,
  extra: (readonly UserContent[])[],
  signal: AbortSignal,
): Promise<{ at: number; proxies: ReadonlyMap<string, string> } | undefined> {
  const argsOf = (call: Call, k: number): string =>
    k === 0 && decision?.approve === true ? (decision.arguments ?? call.arguments) : call.arguments;
  const results = await runSubagentGroup(
    ctx,
    state,
    calls.map((call, k) => ({ ...call, arguments: argsOf(call, k) })),
    signal,
  );
  for (let k = 0; k < calls.length; k++) {
    const call = calls[k]!;
    const result = results[k]!;
    const approved = k === 0 && (call.approval !== undefined || decision !== undefined);
    if (result.kind === "paused" && !approved) {
      logRequest(ctx, call, result.reason);
      const proxies = new Map<string, string>();
      for (let later = k + 1; later < calls.length; later++) {
        const r = results[later]!;
        if (r.kind === "paused") proxies.set(calls[later]!.callId, r.reason);
      }
      return { at: k, proxies };
    }
    const outcome: ToolCallOutcome =
      result.kind === "done"
        ? result.outcome
        : {
            content: [{ type: "text", text: `Tool call not completed: ${result.reason}.` }],
            isError: true,
            error: "threw",
          };
    logCall(ctx, call, argsOf(call, k));
    logResult(ctx, call, outcome);
    if (outcome.additionalContext !== undefined) extra.push(outcome.additionalContext);
  }
  return undefined;
}

/**
 * Nobody answered: the current call and every later one wait. The later ones are asked about
 * together now — an approval request for each that needs one, else its question — and the turn
 * ends awaiting. Post-tool context of the calls that ran is dropped (see `dropContext`).
 */
async function pause(
  ctx: TurnContext,
  state: TurnState,
  later: readonly Call[],
  extra: readonly (readonly UserContent[])[],
  proxies?: ReadonlyMap<string, string>,
): Promise<void> {
  for (const call of later) {
    const why =
      call.approval === undefined ? (proxies?.get(call.callId) ?? (await needsApproval(ctx, call))) : undefined;
    if (why !== undefined) logRequest(ctx, call, why);
    else if (call.approval === undefined && call.input === undefined) {
      const question = await askedBy(ctx, call);
      if (question !== undefined) logQuestion(ctx, call, question);
    }
  }
  state.awaiting = true;
  dropContext(ctx, extra);
}

/** The call's question to a person, or undefined; undefined at once (no promise) for a tool that asks none. */
function askedBy(
  ctx: TurnContext,
  call: Call,
): Promise<{ message: string; schema: PendingInput["schema"] } | undefined> | undefined {
  if (ctx.tools.get(call.name)?.question === undefined) return undefined; // most tools ask nothing
  return questionOf(ctx.tools, call.arguments, contextOf(ctx, call));
}

/** What a tool's `needsApproval` and `question` are told about the call. */
function contextOf(ctx: TurnContext, call: Call): ApprovalContext {
  return {
    callId: call.callId,
    name: call.name,
    sessionId: ctx.session.id,
    turn: call.turn,
    step: call.step,
    ...(ctx.cwd === undefined ? {} : { cwd: ctx.cwd }),
  };
}

function logQuestion(
  ctx: TurnContext,
  call: Call,
  question: { message: string; schema: PendingInput["schema"] },
): PendingInput {
  return pending(
    ctx.session.append("input/request", {
      id: call.callId,
      source: call.name,
      schema: question.schema,
      message: question.message,
    }),
  );
}

/**
 * The reason a call needs approval, or undefined; undefined at once (no promise) for a tool
 * without a rule — what `approvalNeed` says, without building its context.
 */
function needsApproval(ctx: TurnContext, call: Call): Promise<string | undefined> | undefined {
  const rule = ctx.tools.get(call.name)?.needsApproval;
  if (rule === undefined || rule === false) return undefined;
  return approvalNeed(ctx.tools, call.arguments, contextOf(ctx, call)).then((need) =>
    need.needed ? need.reason : undefined,
  );
}

function logRequest(ctx: TurnContext, call: Call, reason: string): PendingApproval {
  return pending(
    ctx.session.append("approval/request", {
      turn: call.turn,
      step: call.step,
      callId: call.callId,
      tool: call.name,
      arguments: call.arguments,
      reason,
    }),
  );
}

/**
 * Asks the live deciders. No answer, a malformed one, a refused one (`approval/decide`) or a
 * throwing listener all count as no answer: the call then waits for `agent.decide`.
 */
async function askLive(
  ctx: TurnContext,
  request: PendingApproval,
  signal: AbortSignal,
): Promise<LoggedDecision | undefined> {
  const { agent, hooks } = ctx;
  let answer: ApprovalDecision | undefined;
  try {
    answer = await hooks.waterfall("approval/ask", { agent, request, signal }, () =>
      ctx.approver === undefined ? Promise.resolve(undefined) : ctx.approver(request, signal),
    );
  } catch (error) {
    hooks.report(error, "approval/ask");
    return undefined;
  }
  if (answer === undefined || answer === null || signal.aborted) return undefined;
  let decision: LoggedDecision;
  try {
    decision = normalizeDecision(answer, request, ctx.tools);
  } catch (error) {
    hooks.report(error, "approval/ask");
    return undefined;
  }
  return (await refusalOf(hooks, agent, request, decision, true)) === undefined ? decision : undefined;
}

/**
 * Logs the call and its result: run (with edited arguments when approved so), or denied. A
 * suspended call (`call.asked`) is run again without a second `tool/call`; a call that asked a
 * question nobody answered is left without a result (`SUSPENDED`).
 */
async function dispatch(
  ctx: TurnContext,
  state: TurnState,
  call: Call,
  decision: LoggedDecision | undefined,
  abort: AbortState,
  answer?: JsonValue,
): Promise<ToolCallOutcome | typeof SUSPENDED> {
  const { session } = ctx;
  const args = decision?.approve === true ? (decision.arguments ?? call.arguments) : call.arguments;
  if (call.asked === undefined) logCall(ctx, call, args);
  const questions = askDuring(ctx, call, abort.signal);
  let outcome: ToolCallOutcome;
  if (decision?.approve === false) outcome = denied(decision);
  else {
    // A tool that may have side effects runs only on a durable log: its call, and every result
    // before it, are on disk first (read-only tools skip this fsync).
    if (ctx.tools.get(call.name)?.readOnly !== true && flushDue(ctx, state)) await commit(ctx, state);
    // One literal, the optional members assigned (a spread into a literal is a generic copy each).
    const input: { -readonly [K in keyof ExecuteToolCallInput]: ExecuteToolCallInput[K] } = {
      registry: ctx.tools,
      hooks: ctx.hooks,
      call: {
        callId: call.callId,
        name: call.name,
        rawArguments: args,
        turn: call.turn,
        step: call.step,
        sessionId: session.id,
      },
      signal: abort.signal,
      abort,
      ask: questions.ask,
      onProgress: (update) =>
        ctx.onProgress?.({ type: "tool-progress", turn: call.turn, step: call.step, callId: call.callId, ...update }),
    };
    if (ctx.cwd !== undefined) input.cwd = ctx.cwd;
    if (ctx.toolTimeoutMs !== undefined) input.timeoutMs = ctx.toolTimeoutMs;
    if (answer !== undefined) input.answer = answer;
    outcome = await executeToolCall(input);
    questions.done();
    if (questions.suspended()) return SUSPENDED; // what the interrupted attempt returned is not the call's result
    if (decision?.arguments !== undefined) outcome = edited(outcome, decision, args);
  }
  logResult(ctx, call, outcome);
  return outcome;
}

function logCall(ctx: TurnContext, call: Call, args: string): void {
  ctx.session.append("tool/call", {
    turn: call.turn,
    step: call.step,
    callId: call.callId,
    name: call.name,
    arguments: args,
  });
}

function logResult(ctx: TurnContext, call: Call, outcome: ToolCallOutcome): void {
  ctx.session.append("tool/result", {
    turn: call.turn,
    step: call.step,
    callId: call.callId,
    content: capToolResult(outcome.content, ctx.maxToolResultChars),
    isError: outcome.isError,
    ...(outcome.error === undefined ? {} : { error: outcome.error }),
    ...(outcome.meta === undefined ? {} : { meta: outcome.meta }),
  });
}

/** The error result a denied call gets: the model reads who denied it and why. */
function denied(decision: LoggedDecision): ToolCallOutcome {
  const by = decision.by === undefined ? "" : ` by ${decision.by}`;
  const why = decision.note === undefined ? "." : `: ${decision.note}`;
  return { content: [{ type: "text", text: `Tool call denied${by}${why}` }], isError: true, error: "denied" };
}

/** The model asked for other arguments than it ran with: its result says so first. */
function edited(outcome: ToolCallOutcome, decision: LoggedDecision, args: string): ToolCallOutcome {
  const by = decision.by ?? "the approver";
  const note = { type: "text" as const, text: `[${by} edited the arguments before approving; it ran with ${args}]` };
  return { ...outcome, content: [note, ...outcome.content] };
}

function appendContext(ctx: TurnContext, extra: readonly (readonly UserContent[])[]): void {
  for (const context of extra)
    ctx.session.append("context/message", { content: context, source: "tools/post-execute" });
}

/**
 * Post-tool context from calls that ran before a pause cannot be logged (nothing joins the
 * history while calls are held, and after the pause it would no longer follow its step): it is
 * dropped and said on `agent/error`.
 */
function dropContext(ctx: TurnContext, extra: readonly (readonly UserContent[])[]): void {
  if (extra.length === 0) return;
  ctx.hooks.report(
    new Error(`${extra.length} post-tool additionalContext item(s) dropped: the step paused for approval`),
    "tools/post-execute",
  );
}
