// Deep freeze for values the log and the loop hand out.
//
// An AbortSignal is never entered or frozen: a frozen request must keep a live signal (P19).

/**
 * Freezes `value` and everything reachable from it in place, and returns it. Walks the whole
 * graph (an object that is already frozen may still hold unfrozen children), so it is
 * O(reachable); hot paths that add a fresh shell around already deep-frozen parts (a request
 * around derived history) freeze just the shell with `Object.freeze`.
 */
export function deepFreeze<T>(value: T): T {
  freezeInto(value, new WeakSet());
  return value;
}

function freezeInto(value: unknown, seen: WeakSet<object>): void {
  if (value === null || (typeof value !== "object" && typeof value !== "function")) return;
  if (typeof AbortSignal !== "undefined" && value instanceof AbortSignal) return;
  if (seen.has(value)) return;
  seen.add(value);
  Object.freeze(value);
  if (Array.isArray(value)) {
    for (const item of value) freezeInto(item, seen);
    return;
  }
  for (const key of Object.keys(value)) freezeInto((value as Record<string, unknown>)[key], seen);
}
