// Deep freeze for values the log and the loop hand out.
//
// An AbortSignal is never entered or frozen: a frozen request must keep a live signal (P19).
// Marks are per tree, not per object: `DEEP_FROZEN` holds the roots `deepFreeze` and a freezing
// `snapshotJson` produced, and a marked root vouches for its whole subtree. A WeakSet add costs
// as much as copying a small object, so nothing marks every node, and values that are frozen
// whole by construction without a mark (a session's events, derived messages, adopted parses)
// are simply "not known" here: `isDeepFrozen` may say false for a frozen value, never true for
// a mutable one.

/**
 * Freezes `value` and everything reachable from it in place, marks it, and returns it. Walks
 * the graph (an object that is merely frozen may still hold unfrozen children) but not into a
 * marked root, so it is O(what is not yet known to be deep-frozen); hot paths that add a fresh
 * shell around already deep-frozen parts (a request around derived history) freeze just the
 * shell with `Object.freeze`.
 */
export function deepFreeze<T>(value: T): T {
  freezeInto(value, new Set()); // a plain Set: it dies with the walk, so no WeakSet (ephemeron) cost
  if (value !== null && typeof value === "object" && !isSignal(value)) DEEP_FROZEN.add(value);
  return value;
}

/** Roots known to be frozen all the way down (by `deepFreeze` or a freezing `snapshotJson`). */
const DEEP_FROZEN = new WeakSet<object>();

/** Records that `value` is frozen all the way down; callers must have made it so. */
export function markDeepFrozen(value: unknown): void {
  if (value !== null && typeof value === "object") DEEP_FROZEN.add(value);
}

/**
 * True when `value` can never change: a primitive, or a root that `deepFreeze` or a freezing
 * `snapshotJson` produced. Lets hot paths compare such values by identity instead of by content.
 */
export function isDeepFrozen(value: unknown): boolean {
  return value === null || typeof value !== "object" ? typeof value !== "function" : DEEP_FROZEN.has(value);
}

const isSignal = (value: object): boolean => typeof AbortSignal !== "undefined" && value instanceof AbortSignal;

function freezeInto(value: unknown, seen: Set<object>): void {
  if (value === null || (typeof value !== "object" && typeof value !== "function")) return;
  if (isSignal(value)) return;
  if (seen.has(value) || DEEP_FROZEN.has(value)) return;
  seen.add(value);
  Object.freeze(value);
  if (Array.isArray(value)) {
    for (const item of value) freezeInto(item, seen);
    return;
  }
  for (const key of Object.keys(value)) freezeInto((value as Record<string, unknown>)[key], seen);
}
