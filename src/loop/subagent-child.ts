// A subagent's agent: its options (the tool's profile or agent options over the parent's
// defaults) and the two plugins that keep it inside its parent's permissions — the guard, first,
// which sends every approval and question the child's tools ask to the parent's deciders (so
// the parent's permission policy and its person answer, never a listener of the child's own),
// and the narrowing, last, which leaves the child only tools the parent has, as the parent's
// definitions. `openChild` creates the child's session (or reopens it: a held call collecting
// its result, a decision routed to it) in the parent's store.
import { isKeelsonError } from "../errors/index.js";
import type { PendingApproval, PendingInput, SessionEvent } from "../session/index.js";
import { Session } from "../session/index.js";
import type { ToolRegistry } from "../tools/index.js";
import { agentOver } from "./agent.js";
import type { ApprovalAnswer, InputReply } from "./approval-types.js";
import { profileAgentOptions } from "./profile.js";
import { type SubagentSpec, subagentSpecOf } from "./subagent-tool.js";
import type { TurnContext } from "./turn-state.js";
import { type Agent, type AgentOptions, type AgentPlugin, LoopError } from "./types.js";

/** Steps of a child's turn when neither the tool nor the child's options say. */
const DEFAULT_MAX_STEPS = 20;

/** Where a child hangs: its parent's turn context, the call that started it, its session id. */
export interface ChildLink {
  readonly ctx: TurnContext;
  readonly spec: SubagentSpec;
  readonly callId: string;
  readonly childId: string;
}

/** The child's agent over its session: a new one (`fresh`), or the stored one reopened. */
export async function openChild(link: ChildLink): Promise<{ readonly agent: Agent; readonly fresh: boolean }> {
  const { ctx, childId } = link;
  const options = await childOptions(link);
  const fresh = (): Session =>
    Session.create(
      {
        id: childId,
        ...(ctx.cwd === undefined ? {} : { cwd: ctx.cwd }),
        spawnedBy: { session: ctx.session.id, callId: link.callId },
      },
      ctx.clock === undefined ? {} : { clock: ctx.clock },
    );
  const store = ctx.store;
  if (store === undefined) {
    const known = ctx.memoryChildren.get(childId);
    const session = known ?? fresh();
    if (known === undefined) ctx.memoryChildren.set(childId, session);
    return { agent: agentOver(options, { session, storeOpen: false }), fresh: known === undefined };
  }
  let stored: Session | undefined;
  try {
    ({ session: stored } = await store.load(childId, ctx.clock === undefined ? {} : { session: { clock: ctx.clock } }));
  } catch (error) {
    if (!isKeelsonError(error, "not-found")) throw error;
  }
  if (stored === undefined)
    return { agent: agentOver({ ...options, store }, { session: fresh(), storeOpen: false }), fresh: true };
  try {
    return { agent: agentOver({ ...options, store }, { session: stored, storeOpen: true }), fresh: false };
  } catch (error) {
    await store.release(childId);
    throw error;
  }
}

/** The child's options: the tool's profile (or agent options) over the parent's provider, model and loop settings. */
async function childOptions(link: ChildLink): Promise<AgentOptions> {
  const { ctx, spec, childId } = link;
  const own: Omit<AgentOptions, "store"> =
    spec.profile !== undefined
      ? await profileAgentOptions(spec.profile, { profile: spec.name, sessionId: childId })
      : {
          ...spec.agent,
          model: spec.agent?.model ?? ctx.agent.model,
          ...(spec.agent?.provider === undefined && spec.agent?.providers === undefined
            ? { provider: ctx.provider }
            : {}),
        };
  return {
    invariants: ctx.invariants,
    retry: ctx.retry,
    durability: ctx.durability,
    ...(ctx.toolTimeoutMs === undefined ? {} : { toolTimeoutMs: ctx.toolTimeoutMs }),
    maxToolResultChars: ctx.maxToolResultChars,
    ...(ctx.clock === undefined ? {} : { clock: ctx.clock }),
    ...own,
    maxSteps: spec.maxSteps ?? own.maxSteps ?? DEFAULT_MAX_STEPS,
    ...(ctx.cwd === undefined ? {} : { cwd: ctx.cwd }),
    plugins: [guard(link), ...(own.plugins ?? []), narrowing(link)],
  };
}

/**
 * First of the child's plugins: outermost among its own `approval/ask` and `input/ask`
 * listeners, it answers with the parent's deciders (their `approval/ask` / `input/ask` and the
 * parent's own approver / answerer) and never calls `next()`, so no listener the child brought
 * can approve what the parent's policy would not. The request reaches the parent with `path`.
 * With a token budget, it also refuses a request once the child has spent it.
 */
function guard(link: ChildLink): AgentPlugin {
  const { ctx, childId } = link;
  const pathOf = (request: PendingApproval | PendingInput): readonly string[] => [
    ctx.session.id,
    ...(request.path ?? [childId]),
  ];
  return (host) => {
    host.on("approval/ask", ({ request, signal }): Promise<ApprovalAnswer> => {
      const forwarded: PendingApproval = Object.freeze({ ...request, path: pathOf(request) });
      return ctx.hooks.waterfall("approval/ask", { agent: ctx.agent, request: forwarded, signal }, () =>
        ctx.approver === undefined ? Promise.resolve(undefined) : ctx.approver(forwarded, signal),
      );
    });
    host.on("input/ask", ({ request, signal }): Promise<InputReply> => {
      const forwarded: PendingInput = Object.freeze({ ...request, path: pathOf(request) });
      return ctx.hooks.waterfall("input/ask", { agent: ctx.agent, request: forwarded, signal }, () =>
        ctx.answerer === undefined ? Promise.resolve(undefined) : ctx.answerer(forwarded, signal),
      );
    });
    const budget = link.spec.tokenBudget;
    if (budget !== undefined)
      host.on("agent/request", (_payload, next) => {
        const spent = spentTokens(host.agent.session);
        if (spent >= budget)
          throw new LoopError(
            "token-budget",
            `subagent ${childId} spent ${spent} tokens, its budget is ${budget}: no further request`,
          );
        return next();
      });
    return undefined;
  };
}

/**
 * Last of the child's plugins: leaves only the parent's tools (see `narrowTools`) at once — held
 * calls of a continued child run before any step — and again before each step reads the tools
 * (a plugin of the child's may register tools later).
 */
function narrowing(link: ChildLink): AgentPlugin {
  return (host) => {
    const narrow = (): void => narrowTools(host.agent.tools, link.ctx.tools, link.spec.tools);
    narrow();
    host.on("agent/tool-set", narrow);
    return undefined;
  };
}

/**
 * The child's tool set within the parent's: each child tool the parent lacks is removed, each
 * the parent has is the parent's definition (the same `needsApproval`, the same gate); then the
 * parent's tools named in `wanted` (default: all but subagent tools) are added.
 */
export function narrowTools(child: ToolRegistry, parent: ToolRegistry, wanted: readonly string[] | undefined): void {
  for (const name of child.names()) {
    const theirs = parent.get(name);
    if (theirs === child.get(name)) continue;
    child.remove(name);
    if (theirs !== undefined) child.register(theirs);
  }
  const names = wanted ?? parent.names().filter((name) => subagentSpecOf(parent.get(name)) === undefined);
  for (const name of names) {
    const tool = parent.get(name);
    if (tool !== undefined && child.get(name) === undefined) child.register(tool);
  }
}

/** Tokens a session's requests were billed: input, cache reads and writes, and output, over every answer. */
export function spentTokens(session: Session): number {
  let total = 0;
  for (let seq = 0; seq < session.length; seq++) {
    const event = session.eventAt(seq)!;
    if (event.type !== "assistant/message") continue;
    const usage = (event as SessionEvent<"assistant/message">).data.usage;
    if (usage !== undefined)
      total += usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens + usage.outputTokens;
  }
  return total;
}
