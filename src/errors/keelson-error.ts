// KeelsonError: the base of every error Keelson throws. Callers branch on `code` (stable, one
// union per layer); people read `message`, which names the offending value and where it was
// found; `name` is the subclass's own name (`StoreError`, `ToolError`, …), so stack traces and
// logs say which layer refused.
export class KeelsonError<C extends string = string> extends Error {
  readonly code: C;

  constructor(code: C, message: string, options?: { readonly cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
  }

  override get name(): string {
    return this.constructor.name;
  }
}

/**
 * True when `error` is a Keelson error (any layer), optionally with one of `codes`. Name the
 * union the codes come from to have them checked: `isKeelsonError<StoreErrorCode>(e, "locked")`
 * does not compile once `StoreErrorCode` has no `locked`, and types `e.code` as that union.
 */
export function isKeelsonError<C extends string = string>(
  error: unknown,
  ...codes: readonly C[]
): error is KeelsonError<C> {
  return error instanceof KeelsonError && (codes.length === 0 || (codes as readonly string[]).includes(error.code));
}
