// A provider's error must not carry the API key it was called with: a gateway or a proxy that
// echoes the request (headers included) in its error body would otherwise put the key in the
// logged turn end, the outcome, the SSE and UI streams and the CLI's stderr. Each adapter passes
// its own key here before an error leaves it; every occurrence in the message and down the
// cause chain becomes `[redacted]`, and so does the start of a key that a bounded message was cut
// inside (`boundedMessage` runs first, in `ProviderError`'s constructor).

const REDACTED = "[redacted]";
/** Shorter "keys" (test placeholders such as "x") are too likely to be ordinary text. */
const MIN_KEY_CHARS = 8;
/** The shortest start of a key, left by a cut, that is redacted (shorter is too likely to be text). */
const MIN_CUT_CHARS = 4;
/** What `boundedMessage` appends after the kept characters. */
const CUT_MARK = /… \(\d+ more characters\)$/;

/** `error` with `key` replaced in its message and its causes' (in place; returned for `throw`). */
export function withoutKey<E>(error: E, key: unknown): E {
  if (typeof key !== "string" || key.length < MIN_KEY_CHARS) return error;
  let at: unknown = error;
  for (let depth = 0; at instanceof Error && depth < 8; depth++) {
    if (at.message.includes(key)) at.message = at.message.split(key).join(REDACTED);
    at.message = withoutCutKey(at.message, key);
    at = at.cause;
  }
  return error;
}

/** `message` with the start of `key` that ends its kept part redacted, when it was cut there. */
function withoutCutKey(message: string, key: string): string {
  const mark = CUT_MARK.exec(message);
  if (mark === null) return message;
  const kept = message.slice(0, mark.index);
  for (let n = Math.min(key.length - 1, kept.length); n >= MIN_CUT_CHARS; n--) {
    if (kept.endsWith(key.slice(0, n))) return `${kept.slice(0, kept.length - n)}${REDACTED}${mark[0]}`;
  }
  return message;
}
