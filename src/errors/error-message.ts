// errorMessage: what a caught value says, for a message that quotes it (and boundedMessage, its
// logged length: a provider may answer with megabytes). Anything can be thrown,
// so a non-Error is stringified rather than read as one.

/** `error.message` for an Error, else `String(error)`. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The most characters of an error message that is logged or shown (the rest is counted, not kept). */
export const MAX_ERROR_MESSAGE_CHARS = 2000;

/** `message` cut to `MAX_ERROR_MESSAGE_CHARS`, saying how much was left out. */
export function boundedMessage(message: string): string {
  if (message.length <= MAX_ERROR_MESSAGE_CHARS) return message;
  return `${message.slice(0, MAX_ERROR_MESSAGE_CHARS)}… (${message.length - MAX_ERROR_MESSAGE_CHARS} more characters)`;
}
