// Deep freeze for values the log and the loop hand out.
//
// An AbortSignal is never entered or frozen: a frozen request must keep a live signal (P19).

/** Freezes `value` and everything reachable from it in place, and returns it. */
export function deepFreeze<T>(value: T): T {
  freezeInto(value);
  return value;
}

function freezeInto(value: unknown): void {
  if (value === null || (typeof value !== "object" && typeof value !== "function")) return;
  if (typeof AbortSignal !== "undefined" && value instanceof AbortSignal) return;
  // An already-frozen object is taken as deep-frozen: everything Keelson freezes, it freezes
  // whole, and this keeps re-freezing shared history O(1) and cycles finite.
  if (Object.isFrozen(value)) return;
  Object.freeze(value);
  if (Array.isArray(value)) {
    for (const item of value) freezeInto(item);
    return;
  }
  for (const key of Object.keys(value)) freezeInto((value as Record<string, unknown>)[key]);
}
