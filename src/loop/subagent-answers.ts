// `streamAnswers` with answers for a subagent's pause (docs/decisions/0025, "Answering a child's
// pause"): a batch whose decisions or responses name a descendant `session` is applied child by
// child — each child of a held subagent call reopened and given its answers
// (`child.streamAnswers`, recursively for a grandchild) — and then, in one turn of this session,
// this session's own answers plus an approval of every held call whose child now waits for
// nothing (which collects the child's answer and continues). One `TurnStream` carries it all, in
// order: the children's events wrapped as `subagent` events (with their path), then this
// session's continuation — what a page that answered a child's approval reads into the same
// assistant message (src/serve). Without a parent turn (a child still waits, nothing of this
// session's was answered) the stream ends after the children's and the outcome says
// `awaiting-approval`.
import { previewName } from "../json/index.js";
import type { Provider } from "../llm/core.js";
import type { ToolRegistry } from "../tools/index.js";
import { resolveProvider } from "./agent-options.js";
import { checkBatch, checkEditedArguments } from "./answer-batch-check.js";
import {
  type AnswerBatch,
  type AnswerStreamOptions,
  ApprovalError,
  type CallDecision,
  type QuestionReply,
} from "./approval-types.js";
import {
  continuedChild,
  type HeldSubagent,
  heldSubagentFor,
  type SessionView,
  storedChild,
  withSession,
} from "./subagent-decide.js";
import { openChild } from "./subagent-child.js";
import { asSubagentEvent, waitingOf } from "./subagent-run.js";
import type { SubagentSpec } from "./subagent-tool.js";
import type { TurnEvent } from "./turn-events.js";
import { withAnswer } from "./turn-outcome.js";
import { turnStreamOf } from "./turn-stream.js";
import type { TurnContext } from "./turn-state.js";
import type { TurnOutcome, TurnStream } from "./types.js";

export interface SubagentAnswersPort {
  readonly ctx: TurnContext;
  /** This session's own `streamAnswers`: one turn logging the batch. */
  readonly own: (batch: AnswerBatch, options?: AnswerStreamOptions) => TurnStream;
  /** Runs once the answers are through, before the outcome settles (the agent re-reads its children's pauses). */
  readonly settled: () => Promise<void>;
}

/** True when some answer of `batch` names a session other than `sessionId` (a subagent's). */
export function answersSubagent(sessionId: string, batch: AnswerBatch): boolean {
  const other = (answer: { readonly session?: string } | null | undefined): boolean =>
    typeof answer?.session === "string" && answer.session !== sessionId;
  return (
    (Array.isArray(batch?.decisions) && batch.decisions.some(other)) ||
    (Array.isArray(batch?.responses) && batch.responses.some(other))
  );
}

interface ChildAnswers {
  readonly held: HeldSubagent;
  readonly decisions: CallDecision[];
  readonly responses: QuestionReply[];
  /** Who answered first for this child: who approves the held call once the child is through. */
  by: string | undefined;
}

/** A stream the combined stream reads next; `wrap` maps a child's events to the parent's. */
interface Published {
  readonly stream: TurnStream;
  readonly wrap?: (event: TurnEvent) => TurnEvent | undefined;
}

/** A batch split by where each answer goes: this session's own, and each held subagent call's child. */
interface SplitAnswers {
  readonly own: { readonly decisions: CallDecision[]; readonly responses: QuestionReply[] };
  readonly children: ReadonlyMap<string, ChildAnswers>;
}

/**
 * Splits `batch` by the held subagent call each answer goes through; `ApprovalError('unknown-call')`
 * for a session no held call leads to (nothing is logged). A child's answers name the deeper
 * session, or none for the child itself.
 */
function splitAnswers(ctx: SessionView, batch: AnswerBatch): SplitAnswers {
  const own = { decisions: [] as CallDecision[], responses: [] as QuestionReply[] };
  const children = new Map<string, ChildAnswers>();
  const route = (target: string | undefined, by: string | undefined): ChildAnswers | undefined => {
    if (target === undefined || target === ctx.session.id) return undefined;
    const held = heldSubagentFor(ctx, target);
    const group = children.get(held.callId) ?? { held, decisions: [], responses: [], by: undefined };
    children.set(held.callId, group);
    group.by ??= by;
    return group;
  };
  for (const decision of batch.decisions ?? []) {
    const group = route(decision.session, decision.by);
    if (group === undefined) own.decisions.push(decision);
    else group.decisions.push(withSession(decision, deeper(group.held, decision.session)));
  }
  for (const response of batch.responses ?? []) {
    const group = route(response.session, response.by);
    if (group === undefined) own.responses.push(response);
    else group.responses.push(withSession(response, deeper(group.held, response.session)));
  }
  return { own, children };
}

/**
 * Every check `streamThroughSubagents` makes before it logs anything: this session's own answers,
 * then each child's against the child's stored log, recursively (read-only: no child is opened,
 * no lock taken) — ids known and pending, the right kind, a question's value valid for its
 * schema. A child's tools are its parent's definitions (decision 0025), so `ctx.tools` checks
 * them. Rejects with the first refusal; logs nothing.
 */
export function checkThroughSubagents(ctx: TurnContext, batch: AnswerBatch): Promise<void> {
  return checkAt(ctx, batch, ctx, rootModel(ctx));
}

/**
 * The checks at `at` (this session, or a descendant's stored log) whose model runs as `model`:
 * undefined when it is not known before its agent is built (a profile's child) — then nothing is
 * size-checked there, its agent checks when it takes the answers. Always passed: a default
 * would put the root's model in an unknown one's place.
 */
async function checkAt(
  ctx: TurnContext,
  batch: AnswerBatch,
  at: SessionView,
  model: ModelAt | undefined,
): Promise<void> {
  const { own, children } = splitAnswers(at, batch);
  const window = model?.provider.contextWindow?.(model.model);
  if (own.decisions.length + own.responses.length > 0)
    await checkEditedArguments(checkBatch(at.session, at.tools, own, window), at.tools);
  await checkChildren(ctx, children, at.tools, model);
}

/** Each child's answers against its stored log (and its model's window, `childModel`), recursively. */
async function checkChildren(
  ctx: TurnContext,
  children: SplitAnswers["children"],
  tools: ToolRegistry,
  parent: ModelAt | undefined,
): Promise<void> {
  for (const { held, decisions, responses } of children.values()) {
    const session = await storedChild(ctx, held.childId);
    if (session === undefined)
      throw new ApprovalError("unknown-call", `subagent session ${previewName(held.childId)} is not in the store`);
    await checkAt(ctx, { decisions, responses }, { session, tools }, childModel(parent, held.spec));
  }
}

/** The agent's own model. */
const rootModel = (ctx: TurnContext): ModelAt => ({ provider: ctx.agent.provider, model: ctx.agent.model });

/** The context window of the agent's model, where its provider knows it. */
const windowOf = (ctx: TurnContext): number | undefined => ctx.agent.provider.contextWindow?.(ctx.agent.model);

/** Where a session's model runs: the provider and the model id. */
interface ModelAt {
  readonly provider: Provider;
  readonly model: string;
}

/**
 * A child's model as its agent will resolve it (subagent-child.ts, `childOptions`): the tool's
 * `agent.model` or the parent's, on the tool's provider or the parent's. Undefined for a child
 * made from a profile (known only once built): its agent checks the answers' size when it
 * takes them.
 */
function childModel(parent: ModelAt | undefined, spec: SubagentSpec): ModelAt | undefined {
  if (parent === undefined || spec.profile !== undefined) return undefined;
  const model = spec.agent?.model ?? parent.model;
  if (spec.agent?.provider === undefined && spec.agent?.providers === undefined)
    return { provider: parent.provider, model };
  try {
    return { provider: resolveProvider({ ...spec.agent, model }), model };
  } catch {
    return undefined; // the child's agent refuses its options when it is built
  }
}

/**
 * Splits `batch` by the held subagent call each answer goes through (throwing `unknown-call` for
 * a session no held call leads to, and the first refusal of this session's own answers — before
 * anything is logged), then checks every child's answers (all of them, before any is logged: a
 * refusal anywhere fails the stream and logs nothing), then streams the children's continuations
 * and this session's.
 */
export function streamThroughSubagents(
  port: SubagentAnswersPort,
  batch: AnswerBatch,
  options: AnswerStreamOptions = {},
): TurnStream {
  const { ctx } = port;
  const { own, children } = splitAnswers(ctx, batch);
  if (own.decisions.length + own.responses.length > 0) checkBatch(ctx.session, ctx.tools, own, windowOf(ctx));

  const published: Published[] = [];
  let finished = false;
  let wake = signal();
  const publish = (item: Published): void => {
    published.push(item);
    wake.resolve();
    wake = signal();
  };
  let cancelled: string | undefined;
  /** This session's own continuation, once it runs: the only events of the stream with this log's seqs. */
  let ownStream: TurnStream | undefined;
  const stopped = (): boolean => cancelled !== undefined || options.signal?.aborted === true;

  const run = async (): Promise<TurnOutcome> => {
    // Every child's answers are checked before any is logged: one refusal refuses the batch.
    await checkChildren(ctx, children, ctx.tools, rootModel(ctx));
    const approvals: CallDecision[] = [];
    for (const { held, decisions, responses, by } of children.values()) {
      if (stopped()) break;
      const { agent: child } = await openChild({ ctx, ...held });
      try {
        const stream = child.streamAnswers({ decisions, responses }, options);
        publish({ stream, wrap: (event) => asSubagentEvent(ctx.session.id, held.callId, held.childId, event) });
        const outcome = await stream.outcome;
        const through = outcome.reason.kind !== "aborted" && outcome.reason.kind !== "disposed";
        if (through && waitingOf(child.session) === undefined)
          approvals.push({ callId: held.callId, ...continuedChild(held, by) });
      } finally {
        await child.dispose();
      }
    }
    const parent = { decisions: [...own.decisions, ...approvals], responses: own.responses };
    if (stopped() || parent.decisions.length + parent.responses.length === 0)
      return withAnswer({ turn: ctx.session.lastTurn, reason: { kind: "awaiting-approval" } }, { text: "" });
    const stream = port.own(parent, options);
    ownStream = stream;
    publish({ stream });
    return stream.outcome;
  };
  const outcome = run().then(
    async (result) => {
      await port.settled();
      return result;
    },
    async (error: unknown) => {
      await port.settled();
      throw error;
    },
  );
  outcome
    .finally(() => {
      finished = true;
      wake.resolve();
    })
    .catch(() => {}); // the iteration rethrows it

  const cancel = (reason: string): void => {
    cancelled ??= reason;
    published.at(-1)?.stream.cancel(reason);
  };
  async function* events(): AsyncGenerator<TurnEvent> {
    let done = false;
    try {
      for (let i = 0; ; i++) {
        while (i >= published.length && !finished) await wake.promise;
        const item = published[i];
        if (item === undefined) break;
        for await (const event of item.stream) {
          const out = item.wrap === undefined ? event : item.wrap(event);
          if (out !== undefined) yield out;
        }
      }
      await outcome;
      done = true;
    } finally {
      if (!done) cancel("stream closed");
    }
  }
  // The children's events come wrapped (no seq of this log): how far this log is durable is its own stream's say.
  return turnStreamOf(outcome, cancel, events, () => ownStream?.durableThrough?.() ?? -1);
}

/** A promise and the function that resolves it (Node 20 has no `Promise.withResolvers`). */
function signal(): { readonly promise: Promise<void>; readonly resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** The session to name in the child: none for the child itself, else the deeper one. */
const deeper = (held: HeldSubagent, target: string | undefined): string | undefined =>
  target === held.childId ? undefined : target;
