// Structured output in a turn: which output a turn asks for, the call config that carries it,
// and the check of the final answer with its repair rounds. The request carries the schema as
// call config (`config.output`, logged on the request header like any config, so the request
// stays a pure function of the log); a turn without output gets a config with no `output` key —
// byte-identical to a request before structured output existed. A failed answer is repaired by
// an ordinary logged step: a `context/message` (source `output-repair`) listing the bounded
// issues, then the next step; a final failure is `OutputError('invalid-output')` with the issues.
import type { RequestConfig } from "../header/index.js";
import type { OutputFormat } from "../llm/core.js";
import {
  answerText,
  type CompiledOutput,
  compileOutput,
  OutputError,
  type OutputSchema,
  REPAIR_SOURCE,
  repairPrompt,
} from "../output/index.js";
import type { AssistantContent } from "../messages/index.js";
import type { Session } from "../session/index.js";
import { LoopError } from "./types.js";

/** What one turn asks of its final answer. */
export interface TurnOutput {
  readonly compiled: CompiledOutput;
  /** Repair rounds allowed after a failed answer. */
  readonly repair: number;
}

/** The default number of repair rounds. */
export const DEFAULT_REPAIR = 1;

/** The agent's defaults: its `output` (compiled) and its `repair`. */
export interface OutputDefaults {
  readonly output: TurnOutput | undefined;
  readonly repair: number;
}

/**
 * The turn output for a call's `output` / `repair` (each falling back to the agent's), or
 * `undefined` when there is no schema. Throws `OutputError('invalid-schema')` for an unusable
 * schema and `LoopError('invalid-options')` for a `repair` that is not an integer ≥ 0.
 */
export function turnOutput(
  options: { readonly output?: OutputSchema | undefined; readonly repair?: number | undefined },
  defaults: OutputDefaults,
): TurnOutput | undefined {
  const repair = options.repair ?? defaults.repair;
  if (!(Number.isSafeInteger(repair) && repair >= 0))
    throw new LoopError("invalid-options", `repair must be an integer ≥ 0, got ${String(repair)}`);
  if (options.output !== undefined) return { compiled: compileOutput(options.output), repair };
  const fallback = defaults.output;
  return fallback === undefined || fallback.repair === repair ? fallback : { ...fallback, repair };
}

/** The agent's defaults from its options (validated: throws like `turnOutput`). */
export function outputDefaults(options: {
  readonly output?: OutputSchema | undefined;
  readonly repair?: number | undefined;
}): OutputDefaults {
  const repair = options.repair ?? DEFAULT_REPAIR;
  return { output: turnOutput({ output: options.output, repair }, { output: undefined, repair }), repair };
}

/** Whether two prompts ask for the same output (and so may share a turn). */
export function sameOutput(a: TurnOutput | undefined, b: TurnOutput | undefined): boolean {
  return a === b || (a !== undefined && b !== undefined && a.compiled === b.compiled && a.repair === b.repair);
}

/** The config a step sends: `config` without any earlier turn's `output`, plus this turn's. */
export function withOutput(config: RequestConfig, format: OutputFormat | undefined): RequestConfig {
  if (format === undefined) {
    if (config.output === undefined) return config;
    const { output: _earlier, ...rest } = config;
    return rest as RequestConfig;
  }
  return { ...config, output: format };
}

/** Per-turn progress of the output check. */
export interface OutputProgress {
  repairsUsed: number;
  /** Set once the final answer validated. */
  value?: { readonly value: unknown };
}

/** What to do after a final answer: nothing more (`done`), or a repair round with this prompt. */
export type AnswerVerdict = { readonly kind: "done" } | { readonly kind: "repair"; readonly prompt: string };

/**
 * Checks the step's final answer. `done`: it validated (`progress.value` is set). `repair`: it
 * failed and a round is left (counted in `progress`); the caller logs the prompt with
 * `logRepair`. Throws `OutputError('invalid-output')` (with the issues) when no round is left.
 * Logs nothing itself, so a turn cancelled while the schema validated logs no repair prompt.
 */
export async function checkAnswer(
  output: TurnOutput,
  content: readonly AssistantContent[],
  progress: OutputProgress,
): Promise<AnswerVerdict> {
  const check = await output.compiled.check(answerText(content));
  if (check.ok) {
    progress.value = { value: check.value };
    return { kind: "done" };
  }
  if (progress.repairsUsed < output.repair) {
    progress.repairsUsed++;
    return { kind: "repair", prompt: repairPrompt(check.issues) };
  }
  const rounds = progress.repairsUsed === 1 ? "1 repair round" : `${progress.repairsUsed} repair rounds`;
  throw new OutputError(
    "invalid-output",
    `the answer does not match the output schema (after ${rounds}): ${check.issues.slice(0, 3).join("; ")}${check.issues.length > 3 ? "; …" : ""}`,
    { issues: check.issues },
  );
}

/** Logs a repair round's prompt: a `context/message` (source `output-repair`) the next step sends. */
export function logRepair(session: Session, prompt: string): void {
  session.append("context/message", { content: [{ type: "text", text: prompt }], source: REPAIR_SOURCE });
}
