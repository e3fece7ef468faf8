// How a serve error message names a value it refused: a primitive as written (bounded), anything
// else by its kind. Local to serve: keelson/serve is bundled for browsers and may not import the
// json layer's previewJson (src/README.md's table).

const MAX_STRING = 40;

/** `value` as an error message names it: `42`, `NaN`, `12n`, `"abc"`, `null`, `an array`, `an object`. */
export function valueName(value: unknown): string {
  switch (typeof value) {
    case "string":
      return JSON.stringify(value.length > MAX_STRING ? `${value.slice(0, MAX_STRING - 3)}...` : value);
    case "number":
    case "boolean":
    case "undefined":
      return String(value);
    case "bigint":
      return `${value}n`;
    case "function":
      return "a function";
    case "symbol":
      return "a symbol";
    default:
      return value === null ? "null" : Array.isArray(value) ? "an array" : "an object";
  }
}
