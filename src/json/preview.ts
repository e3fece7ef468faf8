// previewJson: a value as it may appear in an error message — its JSON, cut to a bounded length.
// A hostile log can hold megabyte strings in any position; errors that quote values must stay
// one readable line.

const DEFAULT_MAX = 60;

/**
 * JSON of `value` cut to `max` characters with "..." (or its type name when it has no JSON). A
 * number JSON cannot write (NaN, ±Infinity: `null` in JSON) and a bigint are shown as written,
 * so a message about a bad option names the value the caller passed.
 */
export function previewJson(value: unknown, max = DEFAULT_MAX): string {
  if (typeof value === "number" && !Number.isFinite(value)) return String(value);
  if (typeof value === "bigint") return `${value}n`.slice(0, max);
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    text = undefined;
  }
  if (text === undefined) return value === null ? "null" : Array.isArray(value) ? "array" : typeof value;
  return text.length > max ? `${text.slice(0, max - 3)}...` : text;
}

/** A plain name: printable ASCII without quotes or backslashes, as ids and tool names are. */
const PLAIN = /^[\x21\x23-\x5b\x5d-\x7e]*$/;

/**
 * A name from untrusted input (a call id, a tool name, a key) as an error message quotes it: as
 * is when it is short and plain, else its JSON cut to `max` characters (`previewJson`).
 */
export function previewName(name: string, max = DEFAULT_MAX): string {
  return name.length <= max && PLAIN.test(name) ? name : previewJson(name, max);
}
