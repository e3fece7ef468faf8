// Deep freeze for values the log and the loop hand out.
//
// An AbortSignal is never entered or frozen: a frozen request must keep a live signal (P19).
/**
 * Freezes `value` and everything reachable from it in place, and returns it. Walks the whole
 * graph (an object that is already frozen may still hold unfrozen children), so it is
 * O(reachable); hot paths that add a fresh shell around already deep-frozen parts (a request
 * around derived history) freeze just the shell with `Object.freeze`.
 */
export function deepFreeze(value) {
    freezeInto(value, new WeakSet());
    markDeepFrozen(value);
    return value;
}
/** Roots known to be frozen all the way down (by `deepFreeze` or a freezing `snapshotJson`). */
const DEEP_FROZEN = new WeakSet();
/** Records that `value` is frozen all the way down; callers must have made it so. */
export function markDeepFrozen(value) {
    if (value !== null && typeof value === "object")
        DEEP_FROZEN.add(value);
}
/**
 * True when `value` can never change: a primitive, or a root that `deepFreeze` or a freezing
 * `snapshotJson` produced. Lets hot paths compare such values by identity instead of by content.
 */
export function isDeepFrozen(value) {
    return value === null || typeof value !== "object" ? typeof value !== "function" : DEEP_FROZEN.has(value);
}
function freezeInto(value, seen) {
    if (value === null || (typeof value !== "object" && typeof value !== "function"))
        return;
    if (typeof AbortSignal !== "undefined" && value instanceof AbortSignal)
        return;
    if (seen.has(value))
        return;
    seen.add(value);
    Object.freeze(value);
    if (Array.isArray(value)) {
        for (const item of value)
            freezeInto(item, seen);
        return;
    }
    for (const key of Object.keys(value))
        freezeInto(value[key], seen);
}
//# sourceMappingURL=freeze.js.map