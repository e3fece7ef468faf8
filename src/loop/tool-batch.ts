// The tool calls of a step, in model order, with approvals (ARCHITECTURE.md §4 step 8, §10):
// a call whose tool `needsApproval` gets an `approval/request`; a live decider (`approval/ask`,
// the agent's `approver`) may answer at once (`approval/decision`, then the call runs or is
// denied); when none answers, that call and every later one wait — the later ones that need
// approval are requested too — and the step ends with them held (the turn ends
// `awaiting-approval`). A later turn runs the held calls (`runHeldCalls`) once each is decided.
// Every call is logged `tool/call` → (flush before a tool that is not read-only) → `tool/result`;
// post-tool context is appended after the batch's last result.
import type { AssistantContent, UserContent } from "../messages/index.js";
import type { PendingApproval } from "../session/index.js";
import { approvalNeed, executeToolCall, type ToolCallOutcome } from "../tools/index.js";
import { type LoggedDecision, normalizeDecision, refusalOf } from "./approval-decision.js";
import type { ApprovalDecision } from "./approval-types.js";
import { commit, type TurnContext, type TurnState } from "./turn-state.js";

/** One call as the model made it (`arguments`: its JSON text), naming the step that made it. */
interface Call {
  readonly turn: number;
  readonly step: number;
  readonly callId: string;
  readonly name: string;
  readonly arguments: string;
  /** A held call's approval (already decided when it runs). */
  readonly approval?: { readonly decision?: LoggedDecision };
}

/** Runs a step's calls; returns how many tool calls the answer made (0: no tools, the turn may end). */
export async function runTools(
  ctx: TurnContext,
  turn: number,
  step: number,
  content: readonly AssistantContent[],
  state: TurnState,
  signal: AbortSignal,
): Promise<number> {
  const calls: Call[] = [];
  for (const block of content)
    if (block.type === "tool-call")
      calls.push({ turn, step, callId: block.callId, name: block.name, arguments: block.arguments });
  await runCalls(ctx, state, calls, signal);
  return calls.length;
}

/**
 * Runs the calls held by an earlier step, in model order, once every approval is decided: each
 * as its decision says; one that was never asked about (it waited behind another, or the pause
 * came from a dispose or a crash) is checked now, and may pause the turn again. Logged outside
 * any step, naming the step that made the call.
 */
export async function runHeldCalls(ctx: TurnContext, state: TurnState, signal: AbortSignal): Promise<void> {
  await runCalls(ctx, state, ctx.session.waitingCalls(), signal);
}

/**
 * The calls in model order: ask about each that needs approval and has none yet; run or deny it
 * as decided; pause (requesting every later undecided one together) when nobody answers. Stops
 * at an abort: the closers close the rest.
 */
async function runCalls(
  ctx: TurnContext,
  state: TurnState,
  calls: readonly Call[],
  signal: AbortSignal,
): Promise<void> {
  const extra: (readonly UserContent[])[] = [];
  for (let i = 0; i < calls.length; i++) {
    if (signal.aborted) return; // the undispatched rest get synthetic aborted results (closeOpenStep)
    const call = calls[i]!;
    let decision = call.approval?.decision;
    if (call.approval !== undefined && decision === undefined) {
      state.awaiting = true; // never run an undecided call (the caller runs held calls only once all are decided)
      return;
    }
    const reason = call.approval === undefined ? await needsApproval(ctx, call) : undefined;
    if (reason !== undefined) {
      const request = logRequest(ctx, call, reason);
      decision = await askLive(ctx, request, signal);
      if (signal.aborted) return;
      if (decision === undefined) {
        // Nobody answered: this call and every later one wait; ask for the later ones together.
        for (const later of calls.slice(i + 1)) {
          const why = later.approval === undefined ? await needsApproval(ctx, later) : undefined;
          if (why !== undefined) logRequest(ctx, later, why);
        }
        state.awaiting = true;
        dropContext(ctx, extra);
        return;
      }
      ctx.session.append("approval/decision", decision);
    }
    const outcome = await dispatch(ctx, state, call, decision, signal);
    if (outcome.additionalContext !== undefined) extra.push(outcome.additionalContext);
  }
  appendContext(ctx, extra);
}

/** The reason a call needs approval, or undefined. */
async function needsApproval(ctx: TurnContext, call: Call): Promise<string | undefined> {
  const need = await approvalNeed(ctx.tools, call.arguments, {
    callId: call.callId,
    name: call.name,
    sessionId: ctx.session.id,
    turn: call.turn,
    step: call.step,
    ...(ctx.cwd === undefined ? {} : { cwd: ctx.cwd }),
  });
  return need.needed ? need.reason : undefined;
}

function logRequest(ctx: TurnContext, call: Call, reason: string): PendingApproval {
  const event = ctx.session.append("approval/request", {
    turn: call.turn,
    step: call.step,
    callId: call.callId,
    tool: call.name,
    arguments: call.arguments,
    reason,
  });
  return Object.freeze({ ...event.data, requestSeq: event.seq, requestedAt: event.time });
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

/** Logs the call and its result: run (with edited arguments when approved so), or denied. */
async function dispatch(
  ctx: TurnContext,
  state: TurnState,
  call: Call,
  decision: LoggedDecision | undefined,
  signal: AbortSignal,
): Promise<ToolCallOutcome> {
  const { session } = ctx;
  const args = decision?.approve === true ? (decision.arguments ?? call.arguments) : call.arguments;
  session.append("tool/call", {
    turn: call.turn,
    step: call.step,
    callId: call.callId,
    name: call.name,
    arguments: args,
  });
  let outcome: ToolCallOutcome;
  if (decision?.approve === false) outcome = denied(decision);
  else {
    // A tool that may have side effects runs only on a durable log: its call, and every result
    // before it, are on disk first (read-only tools skip this fsync).
    if (ctx.tools.get(call.name)?.readOnly !== true) await commit(ctx, state);
    outcome = await executeToolCall({
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
      signal,
      ...(ctx.cwd === undefined ? {} : { cwd: ctx.cwd }),
      ...(ctx.toolTimeoutMs === undefined ? {} : { timeoutMs: ctx.toolTimeoutMs }),
    });
    if (decision?.arguments !== undefined) outcome = edited(outcome, decision, args);
  }
  session.append("tool/result", {
    turn: call.turn,
    step: call.step,
    callId: call.callId,
    content: outcome.content,
    isError: outcome.isError,
    ...(outcome.error === undefined ? {} : { error: outcome.error }),
    ...(outcome.meta === undefined ? {} : { meta: outcome.meta }),
  });
  return outcome;
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
