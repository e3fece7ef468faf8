// A provider's error must not carry the API key it was called with: a gateway or a proxy that
// echoes the request (headers included) in its error body would otherwise put the key in the
// logged turn end, the outcome, the SSE and UI streams and the CLI's stderr. Each adapter passes
// its own key here before an error leaves it; every occurrence in the message and down the
// cause chain becomes `[redacted]`.

const REDACTED = "[redacted]";
/** Shorter "keys" (test placeholders such as "x") are too likely to be ordinary text. */
const MIN_KEY_CHARS = 8;

/** `error` with `key` replaced in its message and its causes' (in place; returned for `throw`). */
export function withoutKey<E>(error: E, key: unknown): E {
  if (typeof key !== "string" || key.length < MIN_KEY_CHARS) return error;
  let at: unknown = error;
  for (let depth = 0; at instanceof Error && depth < 8; depth++) {
    if (at.message.includes(key)) at.message = at.message.split(key).join(REDACTED);
    at = at.cause;
  }
  return error;
}
