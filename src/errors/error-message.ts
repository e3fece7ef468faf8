// errorMessage: what a caught value says, for a message that quotes it. Anything can be thrown,
// so a non-Error is stringified rather than read as one.

/** `error.message` for an Error, else `String(error)`. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
