// How a JSON path is written in error messages: `$.a.b[2]`, `$["a b"]`. A key is untrusted (a
// hostile log can hold a megabyte key): a long or odd one is quoted as a bounded preview.
import { previewJson } from "./preview.js";

/** The longest key a path writes out whole. */
const MAX_KEY = 60;

export function childPath(parent: string, key: string | number): string {
  if (typeof key === "number") return `${parent}[${key}]`;
  return key.length <= MAX_KEY && /^[A-Za-z_$][\w$]*$/.test(key)
    ? `${parent}.${key}`
    : `${parent}[${previewJson(key, MAX_KEY)}]`;
}

/** The longest path a message writes out whole (512 levels of `[0]` is 1,537 characters). */
const MAX_PATH = 400;

/** `path` as a message writes it: a longer one keeps its start and end around "…". */
export function messagePath(path: string): string {
  if (path.length <= MAX_PATH) return path;
  const half = MAX_PATH / 2;
  return `${path.slice(0, half)}…(${path.length - MAX_PATH} chars)…${path.slice(-half)}`;
}
