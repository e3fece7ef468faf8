// Builders for tool-pipeline tests: a registry + hook bus whose reports are recorded, a `call`
// that drives executeToolCall with sensible defaults, probe tools that record what they were
// given, and a deferred for "the tool has started" without sleeping.
import { z } from "zod";
import { HookBus } from "../../src/hooks/index.js";
import {
  type AbortState,
  type ToolCallOutcome,
  type ToolContext,
  type ToolDefinition,
  type ToolHooks,
  type ToolOutput,
  type ToolProgress,
  ToolRegistry,
  executeToolCall,
} from "../../src/tools/index.js";

export interface Deferred<T> {
  readonly promise: Promise<T>;
  resolve(value: T): void;
}

export function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

export interface CallOptions {
  readonly signal?: AbortSignal;
  /** The turn's abort state over `signal`, as the loop passes it. */
  readonly abort?: AbortState;
  readonly timeoutMs?: number;
  readonly cwd?: string;
  readonly callId?: string;
  /** Told the call's progress reports. */
  readonly onProgress?: (update: ToolProgress) => void;
}

export interface Harness {
  readonly registry: ToolRegistry;
  readonly hooks: HookBus<ToolHooks>;
  /** What the bus's `report` option received, in order. */
  readonly reported: { readonly error: unknown; readonly hook: string }[];
  /** Runs one call; `args` is sent as JSON unless it is already a string (the raw arguments). */
  call(name: string, args?: unknown, options?: CallOptions): Promise<ToolCallOutcome>;
}

export function harness(): Harness {
  const registry = new ToolRegistry();
  const reported: { error: unknown; hook: string }[] = [];
  const hooks = new HookBus<ToolHooks>({ report: (error, hook) => reported.push({ error, hook }) });
  return {
    registry,
    hooks,
    reported,
    call: (name, args = {}, options = {}) =>
      executeToolCall({
        registry,
        hooks,
        call: {
          callId: options.callId ?? "call-1",
          name,
          rawArguments: typeof args === "string" ? args : JSON.stringify(args),
          turn: 1,
          step: 1,
          sessionId: "s-tools",
        },
        signal: options.signal ?? options.abort?.signal ?? new AbortController().signal,
        ...(options.abort === undefined ? {} : { abort: options.abort }),
        ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
        ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
        ...(options.onProgress === undefined ? {} : { onProgress: options.onProgress }),
      }),
  };
}

export interface Probe {
  readonly tool: ToolDefinition;
  /** One entry per execute: the parsed arguments and the context. */
  readonly runs: { readonly args: unknown; readonly context: ToolContext }[];
  /** Resolves with the context when execute is first called. */
  readonly started: Promise<ToolContext>;
}

/** A tool named `name` with input `{ path: string }` whose execute is `body` (default: echo the path). */
export function probe(
  name: string,
  body?: (args: { path: string }, context: ToolContext) => ToolOutput | Promise<ToolOutput>,
  extra: Partial<ToolDefinition> = {},
): Probe {
  const runs: { args: unknown; context: ToolContext }[] = [];
  const started = deferred<ToolContext>();
  const tool: ToolDefinition = {
    name,
    description: `the ${name} tool`,
    input: z.object({ path: z.string() }),
    execute: (args: { path: string }, context: ToolContext) => {
      runs.push({ args, context });
      started.resolve(context);
      return body === undefined ? `read ${args.path}` : body(args, context);
    },
    ...extra,
  };
  return { tool, runs, started: started.promise };
}

/** A body that never settles: only a timeout or an abort can end the call. */
export const never = (): Promise<ToolOutput> => new Promise<ToolOutput>(() => {});

/** The text of an outcome's parts, joined. */
export const textOf = (outcome: ToolCallOutcome): string =>
  outcome.content.map((p) => (p.type === "text" ? p.text : `[image ${p.mediaType}]`)).join("");
