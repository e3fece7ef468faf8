// CliError: a failure the user caused or can fix (bad id, bad model string, missing key). The
// entry point prints its message as one line on stderr and exits with `exitCode`; a stack trace
// is printed only with `--debug`. Errors of other layers that carry a stable `code` are shown
// the same way (see `describeError`), and a StoreError's problem without its file (`problemOf`).
import { KeelsonError } from "../errors/index.js";
import type { StoreError } from "../store/index.js";
export class CliError extends KeelsonError<"cli"> {
  readonly exitCode: number;
  /** `cause`: the layer error this one reports (a StoreError), for callers that branch on its code. */
  constructor(message: string, exitCode = 2, options?: { readonly cause?: unknown }) {
    super("cli", message, options);
    this.exitCode = exitCode;
  }
}

/**
 * One line for any error: `code: message` for layer errors, the message for CliErrors. The code
 * is said once: Node's errno messages already start with it (`ENOSPC: no space left on device`).
 */
export function describeError(error: unknown): string {
  if (error instanceof CliError) return error.message;
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    const text = error.message.split("\n")[0] ?? "";
    return typeof code === "string" && !text.startsWith(`${code}:`) ? `${code}: ${text}` : text;
  }
  return String(error);
}

/** A StoreError's message without the `file: ` / `file: line N: ` it starts with (the CLI puts `file:line:` first). */
export function problemOf(error: StoreError): string {
  return error.file !== undefined && error.message.startsWith(`${error.file}:`)
    ? error.message.slice(error.file.length).replace(/^(: line \d+)?:\s*/, "")
    : error.message;
}
