// The vocabulary of structured output: what `output` accepts (exactly what a tool's `input`
// accepts), the value type it yields, the result of checking an answer, the compiled form the
// loop carries per turn, and the layer's error.
import { KeelsonError } from "../errors/index.js";
import type { OutputFormat } from "../llm/core.js";
import type { ArgsOf, ToolInput } from "../tools/index.js";

/** A zod 4 schema, a Standard Schema that converts itself to JSON Schema, `jsonSchema(...)`, or a JSON Schema object. */
export type OutputSchema = ToolInput;

/** The value an answer validated by `S` becomes (zod's output type, `jsonSchema<T>`'s `T`, or `JsonObject`). */
export type OutputOf<S> = ArgsOf<S>;

/**
 * An answer checked against an output schema: its validated value, or the issues — one
 * `path: problem` line each, at most `MAX_ISSUES` (a last line says how many more there were).
 */
export type OutputCheck<T = unknown> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly issues: readonly string[] };

/**
 * An output schema compiled once (cached per schema object, so the same schema object is the
 * same `CompiledOutput`): the format the request carries and the answer's validator.
 */
export interface CompiledOutput {
  /** What the request header logs as `config.output`; a promise while an older zod's converter loads. */
  readonly format: OutputFormat | Promise<OutputFormat>;
  /** Parses and validates a final answer's text. Never throws; never rejects. */
  check(text: string): Promise<OutputCheck>;
}

export type OutputErrorCode =
  /** The final answer failed validation (after any repair rounds); `issues` says why. */
  | "invalid-output"
  /** The schema cannot be used: not a schema, a zod 3 schema, not convertible, not an object at the root. */
  | "invalid-schema";

export class OutputError extends KeelsonError<OutputErrorCode> {
  /** For `invalid-output`: the final answer's issues (bounded). */
  readonly issues: readonly string[];
  constructor(code: OutputErrorCode, message: string, options: { issues?: readonly string[]; cause?: unknown } = {}) {
    super(code, message, options.cause === undefined ? undefined : { cause: options.cause });
    this.issues = options.issues ?? [];
  }
}
