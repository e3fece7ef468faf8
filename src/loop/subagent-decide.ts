// Deciding a subagent's pause through its parent (docs/decisions/0025): a child that waits for
// a person leaves its parent's call held behind an `approval/request` (the subagent's pause).
// `agent.decide(callId, { ..., session })` / `agent.respond(id, { ..., session })` naming a
// descendant session reopens the child of the held call that leads there, decides (or answers)
// in it — recursively for a grandchild — and, once the child waits for nothing, approves the
// held call, which then collects the child's result and continues the parent's turn: deciding
// it continues the child and then the parent. Approving the held call directly while its child
// still waits is refused (`awaits-subagent`): nothing could continue it.
import { isKeelsonError } from "../errors/index.js";
import { previewName } from "../json/index.js";
import { type Session, type SessionEvent, subagentSessionId } from "../session/index.js";
import { ApprovalError, type ApprovalDecision } from "./approval-types.js";
import { openChild } from "./subagent-child.js";
import { waitingOf } from "./subagent-run.js";
import { type SubagentSpec, subagentSpecOf } from "./subagent-tool.js";
import { withAnswer } from "./turn-outcome.js";
import type { TurnContext } from "./turn-state.js";
import type { Agent, TurnOutcome } from "./types.js";

/** A held subagent call of this session whose approval (the subagent's pause) is undecided. */
export interface HeldSubagent {
  readonly callId: string;
  readonly spec: SubagentSpec;
  readonly childId: string;
}

/** A session and the tools its calls are checked with: a turn context, or a subagent's stored log and its parent's tools. */
export type SessionView = Pick<TurnContext, "session" | "tools">;

export function heldSubagents(ctx: SessionView): HeldSubagent[] {
  const out: HeldSubagent[] = [];
  for (const call of ctx.session.waitingCalls()) {
    if (call.approval === undefined || call.approval.decision !== undefined) continue;
    const spec = subagentSpecOf(ctx.tools.get(call.name));
    const childId = subagentSessionId(ctx.session.id, call.callId);
    if (spec !== undefined && childId !== undefined) out.push({ callId: call.callId, spec, childId });
  }
  return out;
}

/**
 * The held subagent call of this session that leads to descendant session `target` (its child,
 * or an ancestor of it). `ApprovalError('unknown-call')` when there is none.
 */
export function heldSubagentFor(ctx: SessionView, target: string): HeldSubagent {
  const held = heldSubagents(ctx).find((h) => target === h.childId || target.startsWith(`${h.childId}.`));
  if (held !== undefined) return held;
  // A call held until `cancel()` closed the paused turn answers as the session's own calls do.
  const cancelled = cancelledCallTo(ctx.session, target);
  if (cancelled !== undefined)
    throw new ApprovalError(
      "cancelled",
      `the subagent call ${previewName(cancelled)} that waited on session ${previewName(target)} was cancelled (cancel() closed the paused turn)`,
    );
  throw new ApprovalError(
    "unknown-call",
    `session ${ctx.session.id} has no subagent call waiting on session ${previewName(target)}`,
  );
}

/** The call of `session` whose subagent leads to `target` and whose result closed it cancelled (`aborted`), if any. */
function cancelledCallTo(session: SessionView["session"], target: string): string | undefined {
  for (const event of session.events) {
    if (event.type !== "tool/result") continue;
    const { callId, error } = (event as SessionEvent<"tool/result">).data;
    if (error !== "aborted") continue;
    const childId = subagentSessionId(session.id, callId);
    if (childId !== undefined && (target === childId || target.startsWith(`${childId}.`))) return callId;
  }
  return undefined;
}

/** What approves a held subagent call once its child waits for nothing: the decision `decide` logs. */
export function continuedChild(held: HeldSubagent, by: string | undefined): ApprovalDecision {
  return { approve: true, by: by ?? "subagent", note: `subagent session ${held.childId} continued` };
}

/**
 * Acts (`act`: a decide or respond on the child, told the deeper session when the target is a
 * grandchild) in the descendant session `target` through the held call that leads to it; then,
 * once that child waits for nothing more, approves the held call (`decideOwn`) and resolves with
 * the parent's continued turn — else with an `awaiting-approval` outcome (nothing logged here).
 */
export async function actInSubagent(
  ctx: TurnContext,
  target: string,
  by: string | undefined,
  act: (child: Agent, deeper: string | undefined) => Promise<unknown>,
  decideOwn: (callId: string, decision: ApprovalDecision) => Promise<TurnOutcome>,
  /** Registers a cancel of the child's work while it runs (`agent.cancel()`); returns its removal. */
  inFlight: (cancel: (reason: string) => void) => () => void = () => () => {},
): Promise<TurnOutcome> {
  const held = heldSubagentFor(ctx, target);
  const { agent: child } = await openChild({ ctx, ...held });
  let waiting: string | undefined;
  let cancelled = false;
  const done = inFlight((reason) => {
    cancelled = true;
    child.cancel(reason);
  });
  try {
    await act(child, target === held.childId ? undefined : target);
    waiting = waitingOf(child.session);
  } finally {
    done();
    await child.dispose();
  }
  // Cancelled: the held call is not approved (the child's turn ended aborted); this session waits on.
  if (waiting !== undefined || cancelled)
    return withAnswer({ turn: ctx.session.lastTurn, reason: { kind: "awaiting-approval" } }, { text: "" });
  return decideOwn(held.callId, continuedChild(held, by));
}

/**
 * A cancel of the parent's paused turn closes the calls held behind its subagents' pauses; each
 * such child is cancelled too (its own paused turn closes its waiting calls, `aborted`), so no
 * approval is left pending that nothing could continue. Best effort: a child that cannot be
 * opened keeps its pause (reported on `agent/error`). Undefined when there is none (nothing to await).
 */
export function cancelWaitingChildren(ctx: TurnContext): Promise<void> | undefined {
  const held = heldSubagents(ctx);
  return held.length === 0 ? undefined : cancelChildren(ctx, held);
}

async function cancelChildren(ctx: TurnContext, children: readonly HeldSubagent[]): Promise<void> {
  for (const held of children) {
    try {
      const { agent: child } = await openChild({ ctx, ...held });
      try {
        if (waitingOf(child.session) !== undefined) {
          child.cancel("the parent's paused turn was cancelled");
          await child.whenIdle();
        }
      } finally {
        await child.dispose();
      }
    } catch (error) {
      ctx.hooks.report(error, `subagent ${held.childId}`);
    }
  }
}

/**
 * Refuses approving held call `callId` while its subagent still waits for a person
 * (`awaits-subagent`). Undefined — decided synchronously, so decisions keep their order — when
 * the call is not a subagent's pause.
 */
export function refuseWhileChildWaits(ctx: TurnContext, callId: string): Promise<void> | undefined {
  const held = heldSubagents(ctx).find((h) => h.callId === callId);
  return held === undefined ? undefined : refuseWaiting(ctx, callId, held);
}

async function refuseWaiting(ctx: TurnContext, callId: string, held: HeldSubagent): Promise<void> {
  const child = await storedChild(ctx, held.childId);
  const waiting = child === undefined ? undefined : waitingOf(child);
  if (waiting !== undefined)
    throw new ApprovalError(
      "awaits-subagent",
      `call ${previewName(callId)} waits for its subagent: ${waiting}; decide that in session ${held.childId} (decide(callId, { approve, session: "${held.childId}" }))`,
    );
}

/** The child's session as stored (read-only), or undefined when there is none. */
export async function storedChild(ctx: TurnContext, childId: string): Promise<Session | undefined> {
  if (ctx.store === undefined) return ctx.memoryChildren.get(childId);
  try {
    return (await ctx.store.load(childId, { readOnly: true })).session;
  } catch (error) {
    if (isKeelsonError(error, "not-found")) return undefined;
    throw error;
  }
}

/** A decision or answer for a deeper session (`session`), or for the child itself (none). */
export function withSession<T extends { readonly session?: string }>(input: T, session: string | undefined): T {
  const { session: _target, ...rest } = input;
  return (session === undefined ? rest : { ...rest, session }) as T;
}
