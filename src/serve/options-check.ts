// The options every serve function takes, checked at the call: an object, each listed field
// absent or of its kind — a `messageId` of 7 would make a `start` chunk the AI SDK's schema
// rejects, an `include` that is no function would fail on the first event, untyped. Ranges
// (`maxEventChars`, `logLength`) are checked where they are used. `ServeError('invalid-options')`.
import { ServeError } from "./types.js";
import { valueName } from "./value-name.js";

/** The type an option must have when it is given. */
export type OptionKind = "boolean" | "string" | "function";

/** Throws `ServeError('invalid-options')` unless `options` is an object whose listed fields, when given, have their kinds. */
export function checkOptions(options: unknown, kinds: Readonly<Record<string, OptionKind>>): void {
  if (typeof options !== "object" || options === null)
    throw new ServeError("invalid-options", `options must be an object, got ${valueName(options)}`);
  for (const key in kinds) {
    const value = (options as Record<string, unknown>)[key];
    if (value !== undefined && typeof value !== kinds[key])
      throw new ServeError("invalid-options", `${key} must be a ${kinds[key]}, got ${valueName(value)}`);
  }
}
