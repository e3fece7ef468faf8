// One turn, in the exact order of ARCHITECTURE.md §4:
//   turn/start → prompt-submit per claimed prompt → steps:
//     assemble system prompt → compose the session prefix (once per instance) → pre-step →
//     queued injects/steers → BOUNDARY (derive history + step/start, one synchronous frame) →
//     agent/request → header record → build + freeze request (+ invariant) → llm/stream →
//     assistant/message → tools in model order (FLUSH before each tool that is not `readOnly`:
//     the answer, the call and every earlier result are durable before any side effect) →
//     post-tool context → step/end → FLUSH
//   → close anything open → turn/end (precedence disposed > aborted > error >
//     awaiting-approval > max-tokens > completed) → awaited FLUSH.
// A step whose tool call needs approval that no live decider gives ends with its calls held and
// the turn ends `awaiting-approval` (tool-batch.ts); a turn claimed for decisions logs them and,
// once every pending one is decided, runs the held calls and continues with steps as usual.
// A throwing listener or provider error ends the turn, never the agent. With a store, every
// flush is a group commit (write + fsync of everything appended since the last one), so a crash
// loses at most the step in flight and never the record of a tool that ran; a failed flush ends
// the turn at once (`error`, code `not-saved`) — no further tool runs on a log that cannot be
// saved — and the outcome says `saved: false`.
import { boundedMessage, isKeelsonError } from "../errors/index.js";
import type { RequestConfig } from "../header/index.js";
import { type AssistantResult, ProviderError, type ProviderRequest } from "../llm/core.js";
import {
  type AssistantContent,
  type Message,
  validateAssistantContent,
  validateUserContent,
} from "../messages/index.js";
import { assembleSystemPrompt, renderedSystemPrompt } from "../prompt/index.js";
import { canonicalJson, type JsonValue } from "../json/index.js";
import { OutputError } from "../output/index.js";
import { AbortState } from "../tools/index.js";
import type { TurnEndReason } from "../session/index.js";
import type { Claim, QueuedInject } from "./inbox.js";
import { freezePrefix, prefixSeed } from "./prefix.js";
import { buildRequest, checkInvariant } from "./request.js";
import { withRetries } from "./retry.js";
import { streamProvider } from "./stream.js";
import { cancelWaitingChildren } from "./subagent-decide.js";
import { runHeldCalls, runTools } from "./tool-batch.js";
import { loopCallId } from "./turn-events.js";
import { finalText, withAnswer } from "./turn-outcome.js";
import { checkAnswer, logRepair, withOutput } from "./turn-output.js";
import {
  type AbortCause,
  Aborted,
  checkAbort,
  commit,
  flushDue,
  type TurnContext,
  type TurnState,
} from "./turn-state.js";
import { LoopError, type TurnOutcome } from "./types.js";

export type { AbortCause, TurnContext } from "./turn-state.js";

export async function runTurn(
  ctx: TurnContext,
  claim: Claim,
  trigger: string,
  signal: AbortSignal,
): Promise<TurnOutcome> {
  const abort = new AbortState(signal); // read on every step instead of the signal (one shape every turn)
  const { session } = ctx;
  const turn = session.lastTurn + 1;
  const state: TurnState = {
    step: 0,
    dispatched: false,
    maxTokens: false,
    steers: [...claim.steers],
    injects: [],
    progress: { repairsUsed: 0 },
    awaiting: false,
  };
  const output = claim.prompts.length > 0 ? claim.prompts[0]!.output : ctx.output;
  if (output !== undefined) state.output = output;
  const startSeq = session.append("turn/start", { turn, trigger }).seq;
  for (const item of [...claim.prompts, ...claim.decisions]) item.onStart?.(turn, startSeq);
  try {
    checkAbort(abort);
    if (claim.compacts.length > 0) await compactNow(ctx, abort);
    const admitted =
      claim.decisions.length > 0
        ? await admitDecisions(ctx, claim, state, abort)
        : await admit(ctx, claim, turn, state, abort);
    if (admitted === "rejected") state.rejected = "every prompt of the turn was blocked";
    else if (admitted === "steps") await runSteps(ctx, turn, state, abort);
  } catch (error) {
    if (!(error instanceof Aborted) && !abort.aborted) {
      state.error = { step: state.step, ...turnErrorOf(error) };
      if (error instanceof OutputError && error.code === "invalid-output") state.issues = error.issues;
      ctx.hooks.emit("agent/error", { agent: ctx.agent, error, where: `turn ${turn}` });
    }
  }
  // A cancel closes the calls held behind a subagent's pause: their children are cancelled too.
  const cancelling = isCancel(ctx, abort) ? cancelWaitingChildren(ctx) : undefined;
  if (cancelling !== undefined) await cancelling;
  closeOpenStep(ctx, abort, state.dispatched);
  // Claimed injects the turn never admitted (it was cancelled or failed before `admit`) are
  // logged now, like those that arrived after the last boundary: an inject resolves only once logged.
  const unadmitted = claim.injects.filter((inject) => !state.injects.includes(inject));
  const late = [...unadmitted, ...ctx.inbox.takeInjects()];
  if (session.waitingCalls().length === 0) appendInjects(ctx, state, late);
  else refuseWhileWaiting(late);
  const reason = endReason(ctx, abort, state);
  session.append("turn/end", { turn, reason });
  let outcome: Omit<TurnOutcome, "text"> = { turn, reason };
  if (ctx.persistence !== undefined) {
    try {
      await ctx.persistence.flush(); // also retries what an earlier failed flush left buffered
    } catch (error) {
      state.storeError ??= error;
    }
    if (state.storeError !== undefined) {
      ctx.hooks.emit("agent/error", { agent: ctx.agent, error: state.storeError, where: "store flush" });
      outcome = { ...outcome, saved: false, storeError: state.storeError };
    } else outcome = { ...outcome, saved: true };
  }
  const final = withAnswer(outcome, {
    text: finalText(session, startSeq),
    ...(reason.kind === "completed" && state.progress.value !== undefined ? { output: state.progress.value } : {}),
    ...(state.issues === undefined ? {} : { issues: state.issues }),
  });
  for (const steer of state.steers) steer.settle.resolve(final);
  for (const inject of state.injects) inject.settle.resolve();
  return final;
}

/** Nothing joins the history while calls wait for approval: such input is refused. */
function refuseWhileWaiting(injects: readonly QueuedInject[]): void {
  if (injects.length === 0) return;
  const error = new LoopError(
    "awaiting-approval",
    "the session awaits approval of a tool call: decide it (agent.decide) before adding context",
  );
  for (const inject of injects) inject.settle.reject(error);
}

/**
 * Logs the claimed decisions and answers; once no approval or question is pending, runs the held
 * calls and goes on with steps — else the turn ends awaiting again. Each decision item learns whether it
 * was logged (a turn aborted before that logs none).
 */
async function admitDecisions(
  ctx: TurnContext,
  claim: Claim,
  state: TurnState,
  abort: AbortState,
): Promise<"steps" | "none"> {
  for (const item of claim.decisions) {
    for (const answer of item.answers)
      if (answer.type === "approval/decision") ctx.session.append(answer.type, answer.data);
      else ctx.session.append(answer.type, answer.data);
    item.logged = true;
  }
  if (ctx.session.awaitingApproval || ctx.session.awaitingInput) {
    state.awaiting = true;
    return "none";
  }
  await runHeldCalls(ctx, state, abort);
  checkAbort(abort);
  return state.awaiting ? "none" : "steps";
}

/** Logs the claim: injects, steers, then each prompt through `agent/prompt-submit`. */
async function admit(
  ctx: TurnContext,
  claim: Claim,
  turn: number,
  state: TurnState,
  abort: AbortState,
): Promise<"steps" | "rejected" | "none"> {
  const { session, hooks, agent } = ctx;
  appendInjects(ctx, state, claim.injects);
  for (const steer of claim.steers)
    session.append("steering/message", { turn, content: steer.content, source: "steer" });
  let allowed = 0;
  for (const prompt of claim.prompts) {
    const input = Object.freeze({ content: prompt.content, source: prompt.source });
    const decision = await hooks.waterfall(
      "agent/prompt-submit",
      { agent, prompt: input },
      () => ({ action: "allow" }) as const,
    );
    checkAbort(abort);
    if (decision.action === "block") {
      session.append("prompt/blocked", { content: prompt.content, source: prompt.source, reason: decision.reason });
      continue;
    }
    const content = decision.content ?? prompt.content;
    validateUserContent(content, "prompt-submit content");
    session.append("user/message", { content, source: prompt.source });
    if (decision.additionalContext !== undefined) {
      validateUserContent(decision.additionalContext, "prompt-submit additionalContext");
      session.append("context/message", { content: decision.additionalContext, source: "prompt-submit" });
    }
    allowed++;
  }
  if (claim.prompts.length > 0 && allowed === 0 && claim.steers.length === 0) return "rejected";
  return allowed > 0 || claim.steers.length > 0 ? "steps" : "none";
}

async function runSteps(ctx: TurnContext, turn: number, state: TurnState, abort: AbortState): Promise<void> {
  const { session, hooks, agent } = ctx;
  // An older zod's schema converts asynchronously; a schema it refuses ends the turn here.
  const format = state.output === undefined ? undefined : await state.output.compiled.format;
  for (;;) {
    if (state.step >= ctx.maxSteps)
      throw new LoopError("max-steps", `the turn reached ${ctx.maxSteps} steps without finishing`);
    const step = ++state.step;
    // A step whose sections, variables and listeners are unchanged reuses the text without an await.
    const fullSystemPrompt =
      renderedSystemPrompt(hooks, ctx.prompt.snapshot(), ctx.promptVars) ??
      (await assembleSystemPrompt(hooks, ctx.prompt.snapshot(), ctx.promptVars));
    checkAbort(abort);
    await hooks.serial("agent/tool-set", { agent, turn, step, signal: abort.signal });
    if (!ctx.tools.settled) await ctx.tools.ready();
    const tools = ctx.tools.schemas();
    const sessionPrefix = ctx.instance.prefix ?? (await composePrefix(ctx, abort));
    await hooks.serial("agent/pre-step", { agent, turn, step, fullSystemPrompt, sessionPrefix, signal: abort.signal });
    checkAbort(abort);
    const boundary = ctx.inbox.takeBoundary();
    appendInjects(ctx, state, boundary.injects);
    for (const steer of boundary.steers) {
      session.append("steering/message", { turn, content: steer.content, source: "steer" });
      state.steers.push(steer);
    }

    // The boundary: history and step/start in one synchronous frame.
    const history = session.historySnapshot(); // fixed now, copied only if something reads it
    const stepStart = session.append("step/start", { turn, step });
    state.dispatched = false;

    const base =
      ctx.instance.requestsSent === 0 ? ctx.initialConfig : (ctx.instance.writer.current?.config ?? ctx.initialConfig);
    const seed: RequestConfig = Object.freeze(withOutput(base, format));
    const payload = { agent, config: seed, system: fullSystemPrompt, tools, sessionPrefix, signal: abort.signal };
    // no listener: the seed is what the waterfall would give (no payload frozen, no await)
    const config =
      hooks.count("agent/request") === 0 ? seed : await hooks.waterfall("agent/request", payload, () => seed);
    checkAbort(abort);
    ctx.instance.writer.record({ config, system: fullSystemPrompt, tools, messagePrefix: sessionPrefix });
    ctx.instance.requestsSent++;
    const request = buildRequest(ctx.instance.writer.current!, history, abort.signal, session.id);
    if (ctx.invariants) checkInvariant(session.events, request, stepStart.seq);
    state.dispatched = true;

    const send = (sent: ProviderRequest): Promise<AssistantResult> => {
      const innermost = (): Promise<AssistantResult> =>
        withRetries(
          ctx.retry,
          abort,
          () =>
            streamProvider(ctx.provider, sent, abort, (chunk) => {
              ctx.onChunk?.(chunk);
              if (hooks.count("llm/chunk") > 0) hooks.emit("llm/chunk", { agent, chunk });
            }),
          (attempt, code, delayMs) => session.append("llm/retry", { turn, step, attempt, code, delayMs }),
        );
      return hooks.count("llm/stream") === 0
        ? innermost()
        : hooks.waterfall("llm/stream", { agent, request: sent }, innermost);
    };
    let result = await send(request);
    if (result.finish === "error" && result.error?.code === "cache-missing" && !abort.aborted) {
      // A provider-side cache the request named is gone: ask `agent/request` once more; a new
      // config (the cache recreated under a new name) is logged, then sent — the step's request
      // is the one that answered (reconstruct: a header record after `llm/retry` re-prepares it).
      const current = ctx.instance.writer.current!.config;
      const retryOf = result.error;
      const again = await hooks.waterfall("agent/request", { ...payload, config: current, retryOf }, () => current);
      checkAbort(abort);
      if (canonicalJson(again as unknown as JsonValue) !== canonicalJson(current as unknown as JsonValue)) {
        session.append("llm/retry", { turn, step, attempt: 1, code: "cache-missing", delayMs: 0 });
        ctx.instance.writer.record({ config: again, system: fullSystemPrompt, tools, messagePrefix: sessionPrefix });
        const retried = buildRequest(ctx.instance.writer.current!, history, abort.signal, session.id);
        if (ctx.invariants) checkInvariant(session.events, retried, stepStart.seq);
        result = await send(retried);
      }
    }
    checkAbort(abort); // a partial stream is discarded
    const content = assistantContent(result, turn, step);
    session.append("assistant/message", {
      turn,
      step,
      content,
      ...(result.usage === undefined ? {} : { usage: result.usage }),
      stopReason: result.finish,
    });
    const running = runTools(ctx, turn, step, content, state, abort);
    const calls = typeof running === "number" ? running : await running;
    checkAbort(abort);
    session.append("step/end", { turn, step });
    if (flushDue(ctx, state)) await commit(ctx, state);
    if (state.awaiting) return;
    if (calls > 0) continue;
    if (result.finish === "max-tokens") {
      state.maxTokens = true;
      return;
    }
    if (ctx.inbox.hasSteers) continue;
    if (state.output === undefined) return;
    const verdict = await checkAnswer(state.output, content, state.progress);
    checkAbort(abort);
    if (verdict.kind === "done") return;
    logRepair(session, verdict.prompt); // a repair round: the next step sends this prompt
  }
}

/** A manual compaction (`agent.compact()`): the same system prompt and prefix a step would use. */
async function compactNow(ctx: TurnContext, abort: AbortState): Promise<void> {
  const gate = ctx.compaction;
  if (gate?.compactNow === undefined)
    throw new LoopError(
      "invalid-options",
      "agent.compact() needs a `compaction` option with compactNow (e.g. createCompaction())",
    );
  const system = await assembleSystemPrompt(ctx.hooks, ctx.prompt.snapshot(), ctx.promptVars);
  await ctx.tools.ready();
  checkAbort(abort);
  const prefix = ctx.instance.prefix ?? (await composePrefix(ctx, abort));
  await gate.compactNow(ctx.agent, system, prefix, abort.signal);
  checkAbort(abort);
}

/** Fires `agent/session-prefix` once per instance; discards the product if the turn was aborted meanwhile. */
async function composePrefix(ctx: TurnContext, abort: AbortState): Promise<readonly Message[]> {
  const seed = prefixSeed();
  const composed = await ctx.hooks.waterfall(
    "agent/session-prefix",
    { agent: ctx.agent, seed, signal: abort.signal },
    () => seed,
  );
  checkAbort(abort); // never cached, logged or sent
  const fresh = freezePrefix(composed);
  const logged = ctx.instance.writer.current?.messagePrefix;
  const prefix =
    ctx.prefixOnResume === "reuse" && logged !== undefined && ctx.instance.requestsSent === 0
      ? reuseLogged(ctx, logged, fresh)
      : fresh;
  ctx.instance.prefix = prefix;
  return prefix;
}

/**
 * `prefixOnResume: 'reuse'`: keep the logged prefix byte-for-byte (so the resumed instance's
 * header equals the previous one and the whole history stays cached) and turn whatever drifted
 * into durable update messages appended now, before the boundary, so they join this request.
 */
function reuseLogged(ctx: TurnContext, logged: readonly Message[], fresh: readonly Message[]): readonly Message[] {
  const same = (a: Message | undefined, b: Message | undefined): boolean =>
    a !== undefined &&
    b !== undefined &&
    canonicalJson(a as unknown as JsonValue) === canonicalJson(b as unknown as JsonValue);
  const driftedAt = fresh.flatMap((m, i) => (same(m, logged[i]) || logged.some((l) => same(l, m)) ? [] : [i]));
  const drifted = driftedAt.map((i) => fresh[i]!);
  if (drifted.length > 0 || fresh.length !== logged.length)
    ctx.hooks.emit("agent/prefix-drift", { agent: ctx.agent, logged, composed: fresh, drifted: driftedAt });
  for (const message of drifted) {
    if (message.role !== "user") continue; // only user-role openers can be restated as context
    ctx.session.append("context/message", { content: message.content, source: "prefix-update" });
  }
  return logged;
}

/** Validates a (possibly listener-made) result and gives tool calls the loop's call ids. */
function assistantContent(result: AssistantResult, turn: number, step: number): AssistantContent[] {
  if (result.finish === "error") {
    throw new ProviderError(
      result.error?.code ?? "provider-error",
      result.error?.message ?? "the provider reported an error",
    );
  }
  if (result.finish === "aborted")
    throw new ProviderError(
      "provider-aborted",
      "the provider ended the stream as aborted, but the turn was not cancelled",
    );
  validateAssistantContent(result.content, "assistant content");
  return result.content.map((block, i) =>
    block.type === "tool-call" ? { ...block, callId: loopCallId(turn, step, i) } : block,
  );
}

function appendInjects(ctx: TurnContext, state: TurnState, injects: readonly QueuedInject[]): void {
  for (const inject of injects) {
    ctx.session.append("context/message", { content: inject.content, source: "inject" });
    state.injects.push(inject);
  }
}

/**
 * Closes a step left open by an abort or error: synthetic results for every owed call, then
 * step/end — marked `dispatched: false` when the request never reached `llm/stream`, so
 * reconstruction does not list a request that was not sent.
 */
function closeOpenStep(ctx: TurnContext, abort: AbortState, dispatched: boolean): void {
  const cause = abort.aborted ? (abort.reason as AbortCause | undefined) : undefined;
  const why =
    cause === undefined
      ? "the turn ended with an error"
      : cause.kind === "dispose" || ctx.isDisposed()
        ? "the agent was disposed"
        : `the turn was cancelled (${cause.reason})`;
  const closers = ctx.session.openTurnClosers({
    closeTurn: false,
    resultText: `Tool call not completed: ${why}.`,
    error: cause === undefined ? "error" : "aborted",
    // A cancel closes the calls that await approval too; an error or a dispose leaves them
    // waiting for a decision (the turn ends error / disposed, the approval stays pending).
    closeAwaiting: cause?.kind === "cancel" && !ctx.isDisposed(),
  });
  for (const closer of closers) {
    if (closer.type === "step/end" && !dispatched)
      ctx.session.append("step/end", { ...(closer.data as { turn: number; step: number }), dispatched: false });
    else ctx.session.appendPending(closer);
  }
}

/** True when the turn ends by a cancel (not a dispose). */
function isCancel(ctx: TurnContext, abort: AbortState): boolean {
  return abort.aborted && (abort.reason as AbortCause | undefined)?.kind === "cancel" && !ctx.isDisposed();
}

function endReason(ctx: TurnContext, abort: AbortState, state: TurnState): TurnEndReason {
  if (ctx.isDisposed()) return { kind: "disposed" };
  if (abort.aborted) {
    const cause = abort.reason as AbortCause | undefined;
    return cause?.kind === "dispose"
      ? { kind: "disposed" }
      : { kind: "aborted", reason: cause?.kind === "cancel" ? cause.reason : "aborted" };
  }
  if (state.error !== undefined) return { kind: "error", ...state.error };
  if (state.awaiting) return ctx.session.awaitingApproval ? { kind: "awaiting-approval" } : { kind: "awaiting-input" };
  if (state.maxTokens) return { kind: "max-tokens" };
  if (state.rejected !== undefined) return { kind: "rejected", reason: state.rejected };
  return { kind: "completed" };
}

/** The message and code a turn that failed logs on `turn/end { kind: "error" }`. */
/** What the turn's end logs of `error`: its code, and its message bounded (a provider may answer with megabytes). */
function turnErrorOf(error: unknown): { message: string; code: string } {
  if (isKeelsonError(error)) return { message: boundedMessage(error.message), code: error.code };
  // Any other error that carries a string code (a Node errno, a listener's own) keeps it.
  const code = (error as { code?: unknown } | null)?.code;
  if (error instanceof Error)
    return {
      message: boundedMessage(error.message),
      code: typeof code === "string" && code !== "" ? code : "exception",
    };
  return { message: boundedMessage(String(error)), code: "exception" };
}
