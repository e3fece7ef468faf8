// subagentTool: a tool whose call runs another agent in a session of its own (ARCHITECTURE.md
// §10, "Subagents are sessions"; docs/decisions/0025). This file is the definition the model
// sees and the options behind it; the loop recognizes the definition (`subagentSpecOf`) and runs
// its calls itself (subagent-run.ts), concurrently with the step's other subagent calls
// (subagent-batch.ts), because a call needs what a plain tool never gets: the parent's store,
// provider, tools, deciders and turn signal.
import type { JsonObject } from "../json/index.js";
import type { OutputSchema } from "../output/index.js";
import type { ArgsOf, NeedsApproval, ToolDefinition, ToolInput } from "../tools/index.js";
import type { AgentProfile } from "./profile.js";
import { type AgentOptions, LoopError } from "./types.js";

/** The child's agent options when given directly (provider and model default to the parent's). */
export type SubagentAgentOptions = Partial<
  Omit<AgentOptions, "store" | "session" | "sessionId" | "approver" | "answerer" | "cwd" | "output" | "repair">
>;

export interface SubagentToolOptions<I extends ToolInput = ToolInput> {
  /** The tool's name (what the model calls). */
  readonly name: string;
  /** What the model reads about when to delegate. */
  readonly description: string;
  /** The child's configuration as an agent profile (provider, model, system, tools, plugins, options). */
  readonly profile?: AgentProfile;
  /** Or as agent options; `provider` and `model` default to the parent's. Ignored with `profile`. */
  readonly agent?: SubagentAgentOptions;
  /** The tool's input (default `{ task: string }`). */
  readonly input?: I;
  /** The child's prompt from the call's arguments (default: `task` for the default input, else the arguments as JSON). */
  readonly prompt?: (args: ArgsOf<I>) => string;
  /**
   * Structured output: the child's final answer must match this schema (its own repair rounds
   * included), and the tool result is the validated value as JSON text.
   */
  readonly output?: OutputSchema;
  /**
   * The parent's tools the child gets, by name (default: every tool of the parent that is not a
   * subagent tool). Tools the child's own options or plugins register are kept only when the
   * parent has a tool of that name, and then as the parent's definition: a child never holds a
   * tool the parent lacks, and never with a weaker `needsApproval`.
   */
  readonly tools?: readonly string[];
  /** Steps of a child's turn before it ends `error` (`max-steps`). Default 20. */
  readonly maxSteps?: number;
  /**
   * Tokens the child may spend over its requests (input, cache reads and writes, output, as the
   * provider reported them); once reached, its next request is not sent and its turn ends
   * `error` with code `token-budget`. Default: no bound.
   */
  readonly tokenBudget?: number;
  /** A bound on one call's wall time (ms), like any tool's `timeoutMs`. Default: none. */
  readonly timeoutMs?: number;
  /** Whether a call needs a person's approval before the child starts (as for any tool). */
  readonly needsApproval?: NeedsApproval<ArgsOf<I>>;
}

/** What the loop keeps of a subagent tool's options. */
export interface SubagentSpec {
  readonly name: string;
  readonly profile: AgentProfile | undefined;
  readonly agent: SubagentAgentOptions | undefined;
  readonly prompt: (args: unknown) => string;
  readonly output: OutputSchema | undefined;
  readonly tools: readonly string[] | undefined;
  readonly tokenBudget: number | undefined;
  readonly timeoutMs: number | undefined;
  /** The tool's own `maxSteps`, else the child options', else 20. */
  readonly maxSteps: number | undefined;
}

const SPEC: unique symbol = Symbol("keelson.subagent");

/** The default input: one self-contained task. */
const TASK_INPUT: JsonObject = {
  type: "object",
  properties: {
    task: {
      type: "string",
      description: "The task for the subagent, self-contained: it sees nothing of this conversation but this text.",
    },
  },
  required: ["task"],
  additionalProperties: false,
};

/**
 * A tool whose every call runs a subagent: a new session in the parent's store (its own log,
 * meta `spawnedBy { session, callId }`, id `<parent>.<callId>`, prefix composed by its own
 * plugins), driven to the end of one turn within its own budget; the tool result is its final
 * text — or, with `output`, its validated structured output — and names the child session in
 * `meta.subagent`. Subagent calls of one step run concurrently. See src/loop/README.md#subagents.
 */
export function subagentTool<I extends ToolInput = typeof TASK_INPUT>(
  options: SubagentToolOptions<I>,
): ToolDefinition<I> {
  if (typeof options?.name !== "string" || typeof options.description !== "string")
    throw new LoopError("invalid-options", "subagentTool needs a `name` and a `description`");
  const positive = (value: number | undefined, what: string): void => {
    if (value !== undefined && !(Number.isSafeInteger(value) && value > 0))
      throw new LoopError("invalid-options", `subagentTool ${options.name}: ${what} must be a positive integer`);
  };
  positive(options.maxSteps, "maxSteps");
  positive(options.tokenBudget, "tokenBudget");
  positive(options.timeoutMs, "timeoutMs");
  const prompt =
    options.prompt ??
    (options.input === undefined
      ? (args: ArgsOf<I>) => String((args as { task?: unknown }).task ?? "")
      : (args: ArgsOf<I>) => JSON.stringify(args, null, 2));
  const spec: SubagentSpec = {
    name: options.name,
    profile: options.profile,
    agent: options.agent,
    prompt: prompt as (args: unknown) => string,
    output: options.output,
    tools: options.tools,
    maxSteps: options.maxSteps,
    tokenBudget: options.tokenBudget,
    timeoutMs: options.timeoutMs,
  };
  const definition = {
    name: options.name,
    description: options.description,
    input: (options.input ?? TASK_INPUT) as I,
    ...(options.needsApproval === undefined ? {} : { needsApproval: options.needsApproval }),
    execute: () => {
      throw new LoopError("invalid-options", `subagent tool ${options.name} runs only inside an agent's turn`);
    },
    // Enumerable, so a copy of the definition (`{ ...tool, needsApproval }`) is still a subagent tool.
    [SPEC]: spec,
  };
  return definition as ToolDefinition<I>;
}

/** The subagent spec of a tool definition, or undefined for any other tool. */
export function subagentSpecOf(tool: ToolDefinition | undefined): SubagentSpec | undefined {
  return (tool as { [SPEC]?: SubagentSpec } | undefined)?.[SPEC];
}
