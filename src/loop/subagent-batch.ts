// Subagent calls of one step run at the same time (docs/decisions/0025): tool-batch.ts gathers
// a run of adjacent subagent calls in model order, and this runs them — after one durability
// point, so the answer that made them and every earlier result are on disk before any child
// starts — each through the tool pipeline's two halves around its runner (`tools/pre-execute`
// and validation, the child, `tools/post-execute`). The caller logs each call and its result in
// model order once all are done, or pauses at the first that waits for a person. Only subagent
// calls overlap: a child's work is keyed by its call id (its session is `<parent>.<callId>`), so
// a call held behind a pause and run again later collects its child instead of repeating it;
// any other tool would run twice.
import { finishToolCall, prepareToolCall, type ToolCallOutcome } from "../tools/index.js";
import { runSubagent } from "./subagent-run.js";
import { subagentSpecOf } from "./subagent-tool.js";
import { commit, type TurnContext, type TurnState } from "./turn-state.js";

/** One call of the run: where it was made, and the arguments it runs with (edited ones, if an approval said so). */
export interface GroupCall {
  readonly turn: number;
  readonly step: number;
  readonly callId: string;
  readonly name: string;
  readonly arguments: string;
}

/** A call's result, or its pause (the child waits for a person: `reason` says for what). */
export type GroupResult =
  | { readonly kind: "done"; readonly outcome: ToolCallOutcome }
  | { readonly kind: "paused"; readonly reason: string };

/** True when the registry's tool `name` is a subagent tool. */
export const isSubagentCall = (ctx: TurnContext, name: string): boolean =>
  subagentSpecOf(ctx.tools.get(name)) !== undefined;

/** Runs the calls together; results in the calls' order. */
export async function runSubagentGroup(
  ctx: TurnContext,
  state: TurnState,
  calls: readonly GroupCall[],
  signal: AbortSignal,
): Promise<GroupResult[]> {
  await commit(ctx, state);
  return Promise.all(calls.map((call) => runOne(ctx, call, signal)));
}

async function runOne(ctx: TurnContext, call: GroupCall, signal: AbortSignal): Promise<GroupResult> {
  const prepared = await prepareToolCall({
    registry: ctx.tools,
    hooks: ctx.hooks,
    call: {
      callId: call.callId,
      name: call.name,
      rawArguments: call.arguments,
      turn: call.turn,
      step: call.step,
      sessionId: ctx.session.id,
    },
  });
  if (prepared.kind === "outcome")
    return { kind: "done", outcome: await finishToolCall(ctx.hooks, prepared.invocation, prepared.outcome) };
  const spec = subagentSpecOf(prepared.tool);
  if (spec === undefined) throw new Error(`tool ${call.name} is not a subagent tool`); // the caller checked
  const run = await runSubagent(ctx, call.callId, spec, prepared.args, signal);
  if (run.kind === "paused") return { kind: "paused", reason: run.reason };
  return { kind: "done", outcome: await finishToolCall(ctx.hooks, prepared.invocation, run.outcome) };
}
