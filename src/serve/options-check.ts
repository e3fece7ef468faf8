// The options every serve function takes, checked at the call: an object with no key the function
// does not take (a misspelt `cancelOndisconnect` would silently keep the default), each listed field
// absent or of its kind — a `messageId` of 7 would make a `start` chunk the AI SDK's schema
// rejects, an `include` that is no function would fail on the first event, untyped. Ranges
// (`maxEventChars`, `logLength`) are checked where they are used. `ServeError('invalid-options')`.
import { type ResponseOptions, ServeError } from "./types.js";
import { valueName } from "./value-name.js";

/** The type an option must have when it is given; `checked`: its value is checked where it is used (a range, a list). */
export type OptionKind = "boolean" | "string" | "function" | "checked";

/** Every option a function takes, with its kind. */
export type OptionKinds = Readonly<Record<string, OptionKind>>;

/** The options every encoder of a turn's events takes (`EncodeOptions`). */
export const ENCODE_OPTION_KINDS: OptionKinds = { cancelOnDisconnect: "boolean" };

/** The options of a byte stream's keep-alive (`KeepAliveOptions`). */
export const KEEP_ALIVE_OPTION_KINDS: OptionKinds = { keepAliveMs: "checked" };

/** The options of a response (`sseResponse`, `pipeSSE`, `uiMessageStreamResponse`, `pipeUIMessageStream`). */
export const RESPONSE_OPTION_KINDS: OptionKinds = { status: "checked", statusText: "string", headers: "checked" };

/**
 * Throws `ServeError('invalid-options')` unless `options` is an object that has no key outside
 * `kinds` (one whose value is `undefined` is let be) and whose fields, when given, have their kinds.
 * `where` names the function in the message.
 */
export function checkOptions(options: unknown, kinds: OptionKinds, where: string): void {
  checkKinds(options, kinds);
  for (const key of Object.keys(options as object)) {
    if (Object.hasOwn(kinds, key) || (options as Record<string, unknown>)[key] === undefined) continue;
    const known = Object.keys(kinds);
    throw new ServeError(
      "invalid-options",
      `${where} has no option ${valueName(key)} (${known.length === 0 ? "it takes none" : `it takes ${known.join(", ")}`})`,
    );
  }
}

/** The object check and the kinds of `checkOptions`, for options that are part of a larger object. */
function checkKinds(options: unknown, kinds: OptionKinds): void {
  if (typeof options !== "object" || options === null)
    throw new ServeError("invalid-options", `options must be an object, got ${valueName(options)}`);
  for (const key in kinds) {
    const kind = kinds[key];
    const value = (options as Record<string, unknown>)[key];
    if (value !== undefined && kind !== "checked" && typeof value !== kind)
      throw new ServeError("invalid-options", `${key} must be a ${kind}, got ${valueName(value)}`);
  }
}

/** A header name: an HTTP token. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,256}$/;
/** A header value or status text: one line (no CR, LF or NUL), as `Response` and `writeHead` take it. */
const HEADER_TEXT = /^[\t\x20-\x7e\x80-\xff]*$/;

/**
 * Throws `ServeError('invalid-options')` unless `init`'s `status` (200–599), `statusText` and
 * `headers` would make a response — checked before any event is read, where a `Response` or
 * `writeHead` would throw a RangeError or TypeError of its own mid-way (or take `headers: 5`).
 */
export function checkResponseOptions(init: unknown): void {
  checkKinds(init, RESPONSE_OPTION_KINDS);
  const { status, statusText, headers } = init as ResponseOptions;
  const refuse = (what: string): never => {
    throw new ServeError("invalid-options", what);
  };
  if (status !== undefined && !(Number.isInteger(status) && status >= 200 && status <= 599))
    refuse(`status must be an integer from 200 to 599, got ${valueName(status)}`);
  if (status === 204 || status === 205 || status === 304)
    refuse(`status ${status} is a response without a body: a stream needs one`);
  if (statusText !== undefined && !HEADER_TEXT.test(statusText))
    refuse(`statusText must be one line of header text, got ${valueName(statusText)}`);
  if (headers === undefined) return;
  const proto: unknown = typeof headers === "object" && headers !== null ? Object.getPrototypeOf(headers) : undefined;
  if (proto !== Object.prototype && proto !== null)
    // a Headers or a Map would pass Object.entries as empty
    refuse(`headers must be a plain object of header names to strings, got ${valueName(headers)}`);
  for (const [name, value] of Object.entries(headers)) {
    if (!HEADER_NAME.test(name)) refuse(`the header name ${valueName(name)} is not an HTTP token`);
    if (typeof value !== "string" || !HEADER_TEXT.test(value))
      refuse(`the header ${name} must be one line of text, got ${valueName(value)}`);
  }
}

/** Throws `ServeError('invalid-argument')` unless `res` looks like a node:http `ServerResponse`. */
export function checkServerResponse(res: unknown, where: string): void {
  const writable = res as { writeHead?: unknown; write?: unknown; end?: unknown; on?: unknown } | null;
  if (
    typeof writable !== "object" ||
    writable === null ||
    typeof writable.writeHead !== "function" ||
    typeof writable.write !== "function" ||
    typeof writable.end !== "function" ||
    typeof writable.on !== "function"
  )
    throw new ServeError("invalid-argument", `${where} needs a node:http ServerResponse, got ${valueName(res)}`);
}
