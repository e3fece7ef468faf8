// adoptParsedJson: the load-path counterpart of snapshotJson, for values that just came out of
// JSON.parse and are owned by nobody else. JSON.parse can only produce one non-lossless value,
// -0 (from "-0"), so instead of copying we check for it and deep-freeze in place: one pass, no
// allocation, no path strings (the path is only worked out when -0 is actually found).
// Anything else (caller-made objects) must go through snapshotJson.
import { childPath } from "./path.js";
import { JsonError, type JsonValue } from "./types.js";

/** Checks a fresh `JSON.parse` result for -0 and deep-freezes it in place; returns it. */
export function adoptParsedJson(value: unknown, rootPath = "$"): JsonValue {
  if (!adopt(value)) throw new JsonError("negative-zero", pathToNegativeZero(value, rootPath), "-0 does not survive JSON (it reads back as 0)");
  return value as JsonValue;
}

/** Freezes everything reachable; false if a -0 was seen. */
function adopt(v: unknown): boolean {
  if (typeof v === "number") return !(v === 0 && 1 / v < 0);
  if (typeof v !== "object" || v === null) return true;
  let ok = true;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const item = v[i];
      if ((typeof item === "object" || typeof item === "number") && !adopt(item)) ok = false;
    }
  } else {
    for (const key in v) {
      const item = (v as Record<string, unknown>)[key];
      if ((typeof item === "object" || typeof item === "number") && !adopt(item)) ok = false;
    }
  }
  Object.freeze(v);
  return ok;
}

function pathToNegativeZero(v: unknown, path: string): string {
  if (typeof v === "number") return path;
  if (typeof v !== "object" || v === null) return path;
  for (const [key, item] of Object.entries(v)) {
    const child = childPath(path, Array.isArray(v) ? Number(key) : key);
    if (typeof item === "number" ? item === 0 && 1 / item < 0 : typeof item === "object" && item !== null && !isClean(item)) {
      return pathToNegativeZero(item, child);
    }
  }
  return path;
}

function isClean(v: object): boolean {
  return Object.values(v).every((item) => (typeof item === "number" ? !(item === 0 && 1 / item < 0) : typeof item !== "object" || item === null || isClean(item)));
}
