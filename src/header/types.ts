// The request header: everything about a request except its derived history (ARCHITECTURE.md §3).
import { KeelsonError } from "../errors/index.js";
import type { JsonValue } from "../json/index.js";
import type { OutputFormat, ToolSchema } from "../llm/core.js";
import type { Message } from "../messages/index.js";

/** Call configuration. Any extra provider field must be lossless JSON. */
export interface RequestConfig {
  readonly model: string;
  readonly temperature?: number;
  readonly maxTokens?: number;
  readonly stop?: readonly string[];
  /** Structured output: set per turn by the loop (`send(prompt, { output })`), absent otherwise. */
  readonly output?: OutputFormat;
  readonly [key: string]: JsonValue | undefined;
}

/**
 * The non-history half of a request. Canonical form: an empty `system`, `tools` or
 * `messagePrefix` is absent (the key is omitted), so "none" has one representation.
 */
export interface EpochHeader {
  readonly config: RequestConfig;
  readonly system?: string;
  readonly tools?: readonly ToolSchema[];
  /** The session prefix: request-only messages placed after the system slot. */
  readonly messagePrefix?: readonly Message[];
}

/** Line trim: keep `keepStart` leading and `keepEnd` trailing lines, put `insert` between. */
export interface SystemDelta {
  readonly keepStart: number;
  readonly keepEnd: number;
  readonly insert: readonly string[];
}

/** Tools keyed by name: removed names, changed tools (in place), added tools (appended). */
export interface ToolsDelta {
  readonly added: readonly ToolSchema[];
  readonly removed: readonly string[];
  readonly changed: readonly ToolSchema[];
}

/** Payload of `request/header-delta`. `messagePrefix: []` encodes the transition to absence. */
export interface HeaderDelta {
  readonly system?: SystemDelta;
  readonly tools?: ToolsDelta;
  readonly config?: RequestConfig;
  readonly messagePrefix?: readonly Message[];
}

/** What the header writer appends for a request (a pure decision; see `decideHeaderRecord`). */
export type HeaderRecord =
  | { readonly kind: "none" }
  | { readonly kind: "snapshot"; readonly reason: "initial" | "resume" | "fallback"; readonly header: EpochHeader }
  | { readonly kind: "delta"; readonly delta: HeaderDelta };

export type HeaderErrorCode = "invalid-header" | "invalid-delta" | "delta-before-snapshot" | "delta-mismatch";

export class HeaderError extends KeelsonError<HeaderErrorCode> {
  /** Seq of the offending event, when the error came from a log. */
  readonly seq: number | undefined;
  constructor(code: HeaderErrorCode, message: string, seq?: number) {
    super(code, message);
    this.seq = seq;
  }
}
