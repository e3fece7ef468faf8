// The tool pipeline for one call: pre-execute → parse + validate → execute(args, signal) with a
// timeout → post-execute. It never throws into the loop: unknown tools, bad arguments, denials,
// throwing tools, timeouts, aborts, bad outputs and throwing hooks all become error results the
// model sees (hook failures are also reported through the bus).
import type { HookBus } from "../hooks/index.js";
import { isThenable } from "../hooks/thenable.js";
import {
  adoptParsedJson,
  deepFreeze,
  JsonError,
  type JsonObject,
  type JsonValue,
  snapshotJson,
} from "../json/index.js";
import {
  MessageShapeError,
  type ToolResultPart,
  validateToolResultContent,
  validateUserContent,
} from "../messages/index.js";
import { AbortState } from "./abort-state.js";
import type { ToolRegistry } from "./registry.js";
import {
  type ToolCallOutcome,
  type ToolContext,
  type ToolDefinition,
  type ToolProgress,
  ToolError,
  type ToolErrorCode,
  type ToolHooks,
  type ToolInvocation,
  type ToolOutput,
  type PostExecuteDecision,
  type PreExecuteDecision,
} from "./types.js";

export interface ExecuteToolCallInput {
  readonly registry: ToolRegistry;
  readonly hooks: HookBus<ToolHooks>;
  readonly call: Omit<ToolInvocation, "arguments">;
  readonly signal: AbortSignal;
  /**
   * The turn's abort state over `signal` (the loop passes its own: one listener per turn instead
   * of one per call, and no per-turn deopt); made for the call when absent.
   */
  readonly abort?: AbortState;
  readonly cwd?: string;
  /** Default per-call timeout (ms) when the tool sets none. Default 120 000. */
  readonly timeoutMs?: number;
  /** The person's answer to the tool's question (`ToolContext.answer`). */
  readonly answer?: JsonValue;
  /** Asks a person while the call runs (`ToolContext.ask`). */
  readonly ask?: ToolContext["ask"];
  /** Told the call's progress reports (`ToolContext.progress`); each also restarts the timeout. */
  readonly onProgress?: (update: ToolProgress) => void;
}

/** The hooks' default decisions (frozen: every listener and caller shares them). */
const ALLOW: PreExecuteDecision = Object.freeze({ action: "allow" });
const ACCEPT: PostExecuteDecision = Object.freeze({ action: "accept" });

const failure = (error: ToolErrorCode, text: string): ToolCallOutcome => ({
  content: [{ type: "text", text }],
  isError: true,
  error,
});

/** A string for any thrown value or reason, even ones with no string form. */
function describe(value: unknown): string {
  if (value instanceof Error) return value.message;
  try {
    return String(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}

function describeReason(reason: unknown): string {
  if (reason === undefined) return "cancelled";
  if (typeof reason === "object" && reason !== null && "reason" in reason)
    return describe((reason as { reason: unknown }).reason);
  return describe(reason);
}

export async function executeToolCall(input: ExecuteToolCallInput): Promise<ToolCallOutcome> {
  const prepared = await prepareToolCall(input);
  let outcome: ToolCallOutcome;
  if (prepared.kind === "outcome") outcome = prepared.outcome;
  else {
    // guarded, inline (no async frame or closure per call for it)
    try {
      outcome = await run(input, prepared);
    } catch (error) {
      outcome = hookFailed(input.hooks, "tools/pre-execute", error);
    }
  }
  return finishToolCall(input.hooks, prepared.invocation, outcome);
}

/** A call past `tools/pre-execute` and validation: its tool and arguments, ready to run. */
export interface PreparedToolCall {
  readonly kind: "ready";
  readonly invocation: ToolInvocation;
  readonly tool: ToolDefinition;
  /** The validated arguments (the schema's output). */
  readonly args: unknown;
}

/**
 * The first half of `executeToolCall`: `tools/pre-execute`, then the tool's lookup and argument
 * validation. Either the call is ready to run, or its outcome is already known (denied, unknown
 * tool, invalid arguments, a throwing hook). Never throws. The loop runs subagent calls through
 * `prepareToolCall` → its own runner → `finishToolCall`.
 */
export async function prepareToolCall(
  input: Pick<ExecuteToolCallInput, "registry" | "hooks" | "call">,
): Promise<
  | PreparedToolCall
  | { readonly kind: "outcome"; readonly invocation: ToolInvocation; readonly outcome: ToolCallOutcome }
> {
  const { hooks } = input;
  const { call } = input;
  // One literal of one shape (a spread copy per call was a generic clone).
  const invocation: ToolInvocation = Object.freeze({
    callId: call.callId,
    name: call.name,
    rawArguments: call.rawArguments,
    turn: call.turn,
    step: call.step,
    sessionId: call.sessionId,
    arguments: parseArguments(call.rawArguments),
  });
  let ready: PreparedToolCall | undefined;
  let outcome: ToolCallOutcome | undefined;
  // guarded, inline (one async frame per call, not three): a throwing hook or check is an error result
  try {
    outcome = await stage();
  } catch (error) {
    outcome = hookFailed(hooks, "tools/pre-execute", error);
  }
  return ready ?? { kind: "outcome", invocation, outcome: outcome! };

  async function stage(): Promise<ToolCallOutcome | undefined> {
    // No listener: the default decision, without the dispatch's payload, promise and await.
    const decision: PreExecuteDecision =
      hooks.count("tools/pre-execute") === 0
        ? ALLOW
        : await hooks.waterfall("tools/pre-execute", { call: invocation }, () => ALLOW);
    if (decision?.action === "deny") return failure("denied", `Tool call denied: ${decision.reason}`);
    // Answered for the tool (a cache, a mock, a replay): it does not run; post-execute still sees it.
    if (decision?.action === "result") return normalizeOutput(decision.output, invocation.name);
    // Fail closed: only an explicit allow runs the tool (a typo'd decision must not).
    if (decision?.action !== "allow")
      throw new ToolError(
        "invalid-hook-decision",
        `unknown tools/pre-execute decision ${describe((decision as { action?: unknown })?.action)}`,
      );
    const registered = input.registry.entry(invocation.name);
    const tool = registered?.tool;
    if (registered === undefined || tool === undefined)
      return failure(
        "unknown-tool",
        `Unknown tool ${JSON.stringify(invocation.name)}. Available tools: ${
          input.registry.names().join(", ") || "none"
        }.`,
      );
    if (invocation.arguments === undefined)
      return failure(
        "invalid-arguments",
        `The arguments for ${tool.name} are not valid JSON: ${invocation.rawArguments.slice(0, 200)}`,
      );
    const parsed = await registered.input.validate(invocation.arguments);
    if (!parsed.ok) return failure("invalid-arguments", `Invalid arguments for ${tool.name}: ${parsed.issues}`);
    ready = { kind: "ready", invocation, tool, args: parsed.value };
    return undefined;
  }
}

/**
 * The second half of `executeToolCall`: `tools/post-execute` over a call's outcome (accept,
 * replace the content, add context, or block). Never throws.
 */
export async function finishToolCall(
  hooks: HookBus<ToolHooks>,
  invocation: ToolInvocation,
  outcome: ToolCallOutcome,
): Promise<ToolCallOutcome> {
  // No listener: nobody sees the outcome before the loop logs it (a copy), so it is neither
  // frozen nor copied here.
  if (hooks.count("tools/post-execute") === 0) return outcome;
  try {
    const decision = await hooks.waterfall(
      "tools/post-execute",
      { call: invocation, outcome: deepFreeze(outcome) },
      () => ACCEPT,
    );
    if (decision.additionalContext !== undefined)
      validateUserContent(snapshotJson(decision.additionalContext), "additionalContext");
    if (decision.action === "block") {
      return {
        ...failure("blocked", String(decision.feedback)),
        ...(decision.additionalContext ? { additionalContext: decision.additionalContext } : {}),
      };
    }
    if (decision.action !== "accept")
      throw new ToolError(
        "invalid-hook-decision",
        `unknown tools/post-execute decision ${describe((decision as { action?: unknown }).action)}`,
      );
    if (decision.content !== undefined) validateToolResultContent(snapshotJson(decision.content), "content");
    return {
      ...outcome,
      ...(decision.content ? { content: decision.content } : {}),
      ...(decision.additionalContext ? { additionalContext: decision.additionalContext } : {}),
    };
  } catch (error) {
    return hookFailed(hooks, "tools/post-execute", error);
  }
}

/** Runs the tool: a synchronous tool's outcome at once, an async one's as a promise (raced against the deadline and the turn's abort). */
function run(input: ExecuteToolCallInput, prepared: PreparedToolCall): ToolCallOutcome | Promise<ToolCallOutcome> {
  const { invocation, tool } = prepared;
  const own = input.abort === undefined;
  const outer = input.abort ?? new AbortState(input.signal);
  if (outer.aborted) return failure("aborted", `Tool call aborted before it ran: ${describeReason(outer.reason)}`);
  const timeoutMs = tool.timeoutMs ?? input.timeoutMs ?? 120_000;
  // The call's own signal aborts when the turn's does or the call times out; whichever comes
  // first fixes the call's outcome (`stoppedWith`). The AbortController behind `context.signal`
  // is made when a tool first reads it: most calls never do, and making one per call was ~4% of
  // a step. A tool that answers synchronously (no promise) is done before any deadline could
  // fire, so the deadline's timer and the race against it are made only for one that returns a
  // promise (a timer and a race per call were ~5% of a step).
  let controller: AbortController | undefined;
  let abortReason: unknown;
  let aborted = false;
  let stoppedWith: ToolCallOutcome | undefined;
  let stop: ((outcome: ToolCallOutcome) => void) | undefined;
  const abort = (reason: unknown, outcome: ToolCallOutcome): void => {
    if (!aborted) {
      aborted = true;
      abortReason = reason;
      controller?.abort(reason);
    }
    if (stoppedWith !== undefined) return;
    stoppedWith = outcome;
    stop?.(outcome);
  };
  const onAbort = (): void =>
    abort(outer.reason, failure("aborted", `Tool ${tool.name} was aborted: ${describeReason(outer.reason)}`));
  outer.listen(onAbort);
  const expire = (): void =>
    abort(
      new ToolError("timeout", `timed out after ${timeoutMs} ms`),
      failure("timeout", `Tool ${tool.name} timed out after ${timeoutMs} ms`),
    );
  let timer: ReturnType<typeof setTimeout> | undefined;
  // A progress report restarts the deadline (idle, not total): a call that keeps reporting runs on.
  const progress = (update: ToolProgress): void => {
    if (aborted) return;
    if (timer !== undefined) {
      clearTimeout(timer);
      timer = setTimeout(expire, timeoutMs);
    }
    input.onProgress?.(update);
  };
  // The optional members are assigned, not spread: three spreads into a literal were a generic copy each.
  const context: { -readonly [K in keyof ToolContext]: ToolContext[K] } = {
    callId: invocation.callId,
    get signal(): AbortSignal {
      if (controller === undefined) {
        controller = new AbortController();
        if (aborted) controller.abort(abortReason);
      }
      return controller.signal;
    },
    sessionId: invocation.sessionId,
    progress,
  };
  if (input.cwd !== undefined) context.cwd = input.cwd;
  if (input.answer !== undefined) context.answer = input.answer;
  if (input.ask !== undefined) context.ask = input.ask;
  const release = (): void => {
    if (timer !== undefined) clearTimeout(timer);
    outer.unlisten(onAbort);
    if (own) outer.detach();
  };
  let returned: ToolOutput | PromiseLike<ToolOutput>;
  try {
    returned = tool.execute(prepared.args as never, context);
  } catch (error) {
    release();
    return threw(tool, error);
  }
  if (!isThenable(returned)) {
    release();
    // The turn aborted while the tool ran (the tool itself may have cancelled it): aborted wins.
    if (stoppedWith !== undefined) return stoppedWith;
    try {
      return normalizeOutput(returned, tool.name);
    } catch (error) {
      return threw(tool, error); // an output that throws while it is read
    }
  }
  timer = setTimeout(expire, timeoutMs);
  const stopped = new Promise<ToolCallOutcome>((resolve) => {
    stop = resolve;
  });
  if (stoppedWith !== undefined) stop!(stoppedWith);
  const executed = (async (): Promise<ToolCallOutcome> => {
    try {
      return normalizeOutput(await returned, tool.name);
    } catch (error) {
      return threw(tool, error);
    }
  })();
  return Promise.race([executed, stopped]).finally(release);
}

/** A tool's own failure (it threw, or its output did while read) as an error result. */
const threw = (tool: ToolDefinition, error: unknown): ToolCallOutcome =>
  failure("threw", `Tool ${tool.name} failed: ${describe(error)}`);

function normalizeOutput(output: ToolOutput, name: string): ToolCallOutcome {
  if (typeof output === "string") return { content: [{ type: "text", text: output }], isError: false };
  if (typeof output !== "object" || output === null || Array.isArray(output)) {
    return failure(
      "invalid-output",
      `Tool ${name} returned ${output === null ? "null" : Array.isArray(output) ? "an array" : typeof output}, not text or { content }`,
    );
  }
  try {
    const copy = snapshotJson(output) as { content: unknown; isError?: unknown; meta?: unknown };
    validateToolResultContent(copy.content, "content");
    if (copy.meta !== undefined && (typeof copy.meta !== "object" || copy.meta === null || Array.isArray(copy.meta))) {
      return failure("invalid-output", `Tool ${name} returned meta that is not an object`);
    }
    return {
      content: copy.content as ToolResultPart[],
      isError: copy.isError === true,
      ...(copy.meta === undefined ? {} : { meta: copy.meta as JsonObject }),
    };
  } catch (e) {
    if (e instanceof JsonError || e instanceof MessageShapeError)
      return failure("invalid-output", `Tool ${name} returned an invalid result: ${e.message}`);
    throw e;
  }
}

/**
 * The parsed arguments, deep-frozen in place (a fresh parse is owned by nobody: no copy), or
 * undefined. Not marked for `isDeepFrozen` (a WeakSet entry per call): nothing asks it about them.
 */
function parseArguments(raw: string): ToolInvocation["arguments"] {
  try {
    return adoptParsedJson(JSON.parse(raw));
  } catch {
    return undefined;
  }
}

/** A throwing hook stage's error result (reported through the bus). */
function hookFailed(hooks: HookBus<ToolHooks>, hook: string, error: unknown): ToolCallOutcome {
  hooks.report(error, hook);
  return failure("threw", `A ${hook} hook failed: ${describe(error)}`);
}
