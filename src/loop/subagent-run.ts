// One subagent call: open the child (subagent-child.ts), run one turn of it on the task — its
// committed events forwarded to the parent's turn streams, a cancel or dispose of the parent
// (the turn's signal) or the call's timeout cancelling it — and make its outcome the call's
// tool result: the final text, or the structured output as JSON, naming the child in
// `meta.subagent`. A child that ends waiting for a person is `paused`: the parent's turn
// pauses on the call (subagent-batch.ts). A child that already ran (a held call running after
// its pause, or a parent resumed after the child finished) is not run again: its last turn is
// collected from its log.
import { errorMessage } from "../errors/index.js";
import type { JsonObject } from "../json/index.js";
import { outputOf } from "../output/index.js";
import type { Session, SessionEvent, TurnEndReason } from "../session/index.js";
import { subagentSessionId } from "../session/index.js";
import type { ToolCallOutcome, ToolErrorCode } from "../tools/index.js";
import { type ChildLink, openChild, spentTokens } from "./subagent-child.js";
import type { SubagentSpec } from "./subagent-tool.js";
import { isCommittedTurnEvent, type SubagentTurnEvent, type TurnEvent } from "./turn-events.js";
import { finalText } from "./turn-outcome.js";
import type { AbortCause, TurnContext } from "./turn-state.js";
import { promptContent } from "./prompt-content.js";
import type { Agent } from "./types.js";

/** What became of a subagent call: its result, or a pause (the child waits for a person). */
export type SubagentRun =
  | { readonly kind: "done"; readonly outcome: ToolCallOutcome }
  | { readonly kind: "paused"; readonly reason: string; readonly childId: string };

/** Runs (or collects) the subagent of call `callId`; never throws — a failure is an error result. */
export async function runSubagent(
  ctx: TurnContext,
  callId: string,
  spec: SubagentSpec,
  args: unknown,
  signal: AbortSignal,
): Promise<SubagentRun> {
  const childId = subagentSessionId(ctx.session.id, callId);
  if (childId === undefined)
    return failed(
      "threw",
      `Subagent ${spec.name} could not start: subagents nest too deep (its session id would exceed 128 characters).`,
    );
  let prompt: string;
  try {
    prompt = spec.prompt(args);
    promptContent(prompt, "the task"); // an empty task is refused before the child's session is created
  } catch (error) {
    return failed("threw", `Subagent ${spec.name} could not start: its prompt failed: ${errorMessage(error)}`);
  }
  const link: ChildLink = { ctx, spec, callId, childId };
  let child: Agent;
  let fresh: boolean;
  try {
    ({ agent: child, fresh } = await openChild(link));
  } catch (error) {
    return failed("threw", `Subagent ${spec.name} could not start (session ${childId}): ${errorMessage(error)}`);
  }
  try {
    const waiting = waitingOf(child.session);
    if (waiting !== undefined) return { kind: "paused", reason: waiting, childId };
    if (!fresh && child.session.lastTurn > 0) return { kind: "done", outcome: await collected(link, child.session) };
    return await runChild(link, child, prompt, signal);
  } catch (error) {
    return failed("threw", `Subagent ${spec.name} (session ${childId}) failed: ${errorMessage(error)}`, childId);
  } finally {
    await child.dispose();
  }
}

/** One turn of the child on `prompt`, cancelled with the parent's turn or at the call's timeout. */
async function runChild(link: ChildLink, child: Agent, prompt: string, signal: AbortSignal): Promise<SubagentRun> {
  const { ctx, spec, callId, childId } = link;
  const cancel = (): void => child.cancel(cancelReason(signal.reason as AbortCause | undefined));
  signal.addEventListener("abort", cancel, { once: true });
  if (signal.aborted) cancel();
  let timedOut = false;
  const timer =
    spec.timeoutMs === undefined
      ? undefined
      : setTimeout(() => {
          timedOut = true;
          child.cancel(`timed out after ${spec.timeoutMs} ms`);
        }, spec.timeoutMs);
  try {
    const stream = child.stream(prompt, spec.output === undefined ? {} : ({ output: spec.output } as never));
    for await (const event of stream) forward(ctx, callId, childId, event);
    await stream.outcome;
  } finally {
    clearTimeout(timer);
    signal.removeEventListener("abort", cancel);
  }
  const waiting = waitingOf(child.session);
  if (waiting !== undefined) return { kind: "paused", reason: waiting, childId };
  const outcome = await collected(link, child.session);
  return timedOut && outcome.isError
    ? { kind: "done", outcome: { ...outcome, error: "timeout" } }
    : { kind: "done", outcome };
}

/** A child's committed events (and its own subagents' ones) go to the parent's turn streams. */
function forward(ctx: TurnContext, callId: string, childId: string, event: TurnEvent): void {
  const wrapped = ctx.onSubagent === undefined ? undefined : asSubagentEvent(ctx.session.id, callId, childId, event);
  if (wrapped !== undefined) ctx.onSubagent!(wrapped);
}

/**
 * A child's event as its parent's stream carries it: a committed event wrapped with the path
 * `[parent, child]` (a grandchild's, with the parent prepended); undefined for a live delta
 * (a child's deltas are not forwarded).
 */
export function asSubagentEvent(
  parent: string,
  callId: string,
  childId: string,
  event: TurnEvent,
): SubagentTurnEvent | undefined {
  if (event.type === "subagent") return { type: "subagent", callId, path: [parent, ...event.path], event: event.event };
  return isCommittedTurnEvent(event) ? { type: "subagent", callId, path: [parent, childId], event } : undefined;
}

/** Why the child was cancelled: the parent's cancel reason, or its disposal. */
function cancelReason(cause: AbortCause | undefined): string {
  if (cause?.kind === "cancel") return `the parent's turn was cancelled (${cause.reason})`;
  if (cause?.kind === "dispose") return "the parent agent was disposed";
  return "the parent's turn was aborted";
}

/** What the child waits for, in words (undefined when it waits for nothing). */
export function waitingOf(session: Session): string | undefined {
  const approval = session.pendingApprovals()[0];
  if (approval !== undefined)
    return `subagent session ${session.id} awaits approval of ${approval.tool} (call ${approval.callId}): ${approval.reason}`;
  const input = session.pendingInputs()[0];
  if (input !== undefined)
    return `subagent session ${session.id} awaits an answer to ${input.source} (call ${input.id}): ${input.message}`;
  return undefined;
}

/** The tool result of the child's last turn, read from its log. */
async function collected(link: ChildLink, session: Session): Promise<ToolCallOutcome> {
  const { spec, childId } = link;
  const end = lastTurnEnd(session);
  const meta: JsonObject = {
    subagent: {
      session: childId,
      ...(end === undefined ? {} : { turn: end.data.turn, reason: end.data.reason.kind }),
      tokens: spentTokens(session),
    },
  };
  if (end === undefined)
    return {
      content: [{ type: "text", text: `Subagent ${spec.name} (session ${childId}) ran no turn.` }],
      isError: true,
      error: "threw",
      meta,
    };
  const text = finalText(session, startOf(session, end.data.turn));
  const reason = end.data.reason;
  if (reason.kind === "completed") {
    if (spec.output === undefined)
      return {
        content: [{ type: "text", text: text === "" ? "(the subagent gave no answer text)" : text }],
        isError: false,
        meta,
      };
    const check = await outputOf(session.events, spec.output, { turn: end.data.turn });
    if (check.ok) return { content: [{ type: "text", text: JSON.stringify(check.value) }], isError: false, meta };
    return {
      content: [
        {
          type: "text",
          text: `Subagent ${spec.name}'s answer does not match its output schema: ${check.issues.join("; ")}`,
        },
      ],
      isError: true,
      error: "invalid-output",
      meta,
    };
  }
  const said = text === "" ? "" : `\nIts last answer:\n${text}`;
  return {
    content: [
      { type: "text", text: `Subagent ${spec.name} (session ${childId}) ended ${describeEnd(reason)}.${said}` },
    ],
    isError: true,
    error: errorCodeOf(reason),
    meta,
  };
}

function describeEnd(reason: TurnEndReason): string {
  switch (reason.kind) {
    case "aborted":
      return `aborted: ${reason.reason}`;
    case "error":
      return `with an error (${reason.code ?? "error"}): ${reason.message}`;
    case "rejected":
      return `rejected: ${reason.reason}`;
    default:
      return reason.kind;
  }
}

function errorCodeOf(reason: TurnEndReason): ToolErrorCode {
  if (reason.kind === "aborted" || reason.kind === "disposed" || reason.kind === "interrupted") return "aborted";
  if (reason.kind === "error" && reason.code === "invalid-output") return "invalid-output";
  return "threw";
}

function failed(error: ToolErrorCode, text: string, childId?: string): SubagentRun {
  return {
    kind: "done",
    outcome: {
      content: [{ type: "text", text }],
      isError: true,
      error,
      ...(childId === undefined ? {} : { meta: { subagent: { session: childId } } }),
    },
  };
}

function lastTurnEnd(session: Session): SessionEvent<"turn/end"> | undefined {
  for (let seq = session.length - 1; seq >= 0; seq--) {
    const event = session.eventAt(seq)!;
    if (event.type === "turn/end") return event as SessionEvent<"turn/end">;
  }
  return undefined;
}

/** Seq of turn `turn`'s `turn/start`. */
function startOf(session: Session, turn: number): number {
  for (let seq = session.length - 1; seq >= 0; seq--) {
    const event = session.eventAt(seq)!;
    if (event.type === "turn/start" && (event as SessionEvent<"turn/start">).data.turn === turn) return seq;
  }
  return 0;
}
