// Tool vocabulary: definitions (zod, Standard Schema or JSON Schema inputs), the invocation the pipeline hands to hooks,
// the hook decisions, and the outcome the loop logs as a `tool/result`.
import type { WaterfallHook } from "../hooks/index.js";
import type { JsonObject, JsonValue } from "../json/index.js";
import type { ToolResultPart, UserContent } from "../messages/index.js";
import { KeelsonError } from "../errors/index.js";
import type { ArgsOf, ToolInput } from "./input-schema.js";

/** What a tool's `execute` may return: text, or parts with an optional error flag and metadata. */
export type ToolOutput =
  | string
  | { readonly content: readonly ToolResultPart[]; readonly isError?: boolean; readonly meta?: JsonObject };

export interface ToolContext {
  readonly callId: string;
  /** The person's answer to the tool's `question` (validated against its schema); absent without one. */
  readonly answer?: JsonValue;
  /**
   * Asks a person a question while the call runs (an MCP server's `elicitation/create`): the loop
   * logs `input/request` (with this call's id as `callId`) and asks the live answerers; the answer,
   * checked against `schema` and logged, resolves it. `undefined`: nobody answers now — the call
   * is *suspended*: whatever it returns is discarded (no result is logged), the turn ends
   * `awaiting-input`, and once `agent.respond` answers, the call runs again from the start, where
   * `ask` answers the same questions (same message and schema, in order) from the log at once.
   */
  readonly ask?: (question: ToolQuestion) => Promise<JsonValue | undefined>;
  /**
   * Reports progress (an MCP server's `notifications/progress`): a live `tool-progress` stream
   * event (never logged), and the call's timeout starts again — an idle deadline, so a call that
   * keeps reporting is not timed out.
   */
  readonly progress?: (update: ToolProgress) => void;
  /** Aborted when the turn is cancelled or the tool's timeout passes. */
  readonly signal: AbortSignal;
  readonly sessionId: string;
  readonly cwd?: string;
}

/** What a tool's `needsApproval` is told about the call it decides for. */
export interface ApprovalContext {
  readonly callId: string;
  /** The tool's name (what the model called). */
  readonly name: string;
  readonly sessionId: string;
  readonly turn: number;
  readonly step: number;
  readonly cwd?: string;
}

/**
 * Whether a call needs a person's approval before it runs: `true` for every call, or a function
 * of the validated arguments — `true` or a string (needed, the string saying why) or `false`.
 * A function that throws counts as needed (fail closed).
 */
export type NeedsApproval<Args = unknown> =
  | boolean
  | ((args: Args, context: ApprovalContext) => boolean | string | Promise<boolean | string>);

/** A running call's progress: `progress` so far, of `total` when known, and a short message. */
export interface ToolProgress {
  readonly progress: number;
  readonly total?: number;
  readonly message?: string;
}

/** A question a tool asks a person before it runs: what they read, and the JSON Schema their answer matches. */
export interface ToolQuestion {
  readonly message: string;
  /** Default `{ "type": "string" }`. */
  readonly schema?: JsonObject;
}

/**
 * A tool. `input` is a zod 4 schema (or any Standard Schema with a JSON Schema converter), a
 * plain JSON Schema object, or `jsonSchema<Args>(schema, { validate })`; `execute` receives the
 * validated arguments.
 */
export interface ToolDefinition<S extends ToolInput = ToolInput> {
  /** Unique; what the model calls. Letters, digits, `_` and `-` (every provider accepts those). */
  readonly name: string;
  readonly description: string;
  readonly input: S;
  /** Per-call timeout in ms (the pipeline's default applies when absent). */
  readonly timeoutMs?: number;
  /**
   * True when the tool has no side effects outside the session (it only reads). The loop makes
   * the log durable before every tool that is not read-only runs, so a crash never loses the
   * record of a call whose effects happened; read-only tools skip that fsync.
   */
  readonly readOnly?: boolean;
  /**
   * A call needs a person's approval before it runs (see `NeedsApproval`). The loop logs an
   * `approval/request`; a live decider (the `approval/ask` hook, the agent's `approver`) may
   * answer at once, else the turn ends `awaiting-approval` and `agent.decide()` continues it.
   */
  readonly needsApproval?: NeedsApproval<ArgsOf<S>>;
  /** An approval may replace the call's arguments (`decide(id, { approve: true, arguments })`). Default false. */
  readonly allowEditedArguments?: boolean;
  /**
   * A question to a person before the call runs (`ask_user`): the loop logs `input/request`, a
   * live answerer may reply at once, else the turn ends `awaiting-input` and `agent.respond()`
   * continues it; `execute` then gets the answer as `context.answer`. Undefined: no question.
   */
  readonly question?: (
    args: ArgsOf<S>,
    context: ApprovalContext,
  ) => ToolQuestion | undefined | Promise<ToolQuestion | undefined>;
  execute(args: ArgsOf<S>, context: ToolContext): ToolOutput | Promise<ToolOutput>;
}

/** One call as the hooks see it. `arguments` is the parsed JSON (undefined if it did not parse). */
export interface ToolInvocation {
  readonly callId: string;
  readonly name: string;
  readonly rawArguments: string;
  readonly arguments: JsonValue | undefined;
  readonly turn: number;
  readonly step: number;
  readonly sessionId: string;
}

/**
 * `allow` runs the tool; `deny` gives the model an error result with the reason; `result` answers
 * for the tool without running it (a cache, a mock, a dry run, a replay of a recorded result): the
 * output is normalized like `execute`'s (text, or `{ content, isError?, meta? }`) and
 * `tools/post-execute` still sees it.
 */
export type PreExecuteDecision =
  | { readonly action: "allow" }
  | { readonly action: "deny"; readonly reason: string }
  | { readonly action: "result"; readonly output: ToolOutput };

export type PostExecuteDecision =
  | {
      readonly action: "accept";
      readonly content?: readonly ToolResultPart[];
      readonly additionalContext?: readonly UserContent[];
    }
  | { readonly action: "block"; readonly feedback: string; readonly additionalContext?: readonly UserContent[] };

/** Why a call became an error result. */
export type ToolErrorCode =
  | "unknown-tool"
  | "invalid-arguments"
  | "denied"
  | "threw"
  | "timeout"
  | "aborted"
  | "blocked"
  | "invalid-output";

/** What the loop logs for one call (never thrown: every failure is a result the model sees). */
export interface ToolCallOutcome {
  readonly content: readonly ToolResultPart[];
  readonly isError: boolean;
  readonly error?: ToolErrorCode;
  readonly meta?: JsonObject;
  readonly additionalContext?: readonly UserContent[];
}

/** `tools/pre-execute`: one call, before it runs. */
export interface PreExecutePayload {
  /** Frozen. */
  readonly call: ToolInvocation;
}

/** `tools/post-execute`: one call, after it ran (or failed). */
export interface PostExecutePayload {
  /** Frozen. */
  readonly call: ToolInvocation;
  /** Deep-frozen. */
  readonly outcome: ToolCallOutcome;
}

/** Each hook takes one payload object, frozen by the bus; see `AgentHooks` (src/loop) for order and ownership. */
export type ToolHooks = {
  /**
   * Before execution: allow, or deny with a reason the model sees, or answer for the tool
   * (`result`: it does not run); only an explicit `allow` runs the tool (default: allow).
   *
   * Waterfall, registration order (global listeners outermost); the first listener that does not
   * call `next()` decides. May throw: the call becomes an error result the model sees (reported on
   * the bus). The invocation is frozen.
   */
  readonly "tools/pre-execute": WaterfallHook<PreExecutePayload, PreExecuteDecision>;
  /**
   * After execution (including failed ones): accept (optionally replacing the content and adding
   * context for the next request) or block (the model sees `feedback` as an error result).
   *
   * Default: accept unchanged. Waterfall, registration order. May throw: the call becomes an
   * error result (reported on the bus). The invocation is frozen and the outcome deep-frozen;
   * returned content and context are validated and copied before they are logged.
   */
  readonly "tools/post-execute": WaterfallHook<PostExecutePayload, PostExecuteDecision>;
};

/**
 * A refused tool definition (`invalid-tool`, `duplicate-tool`), schemas asked for before they are
 * ready (`not-ready`), a hook's unknown decision, or a call's timeout (the abort reason).
 */
export class ToolError extends KeelsonError<
  "invalid-tool" | "duplicate-tool" | "not-ready" | "invalid-hook-decision" | "timeout"
> {}
