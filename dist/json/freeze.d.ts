/**
 * Freezes `value` and everything reachable from it in place, and returns it. Walks the whole
 * graph (an object that is already frozen may still hold unfrozen children), so it is
 * O(reachable); hot paths that add a fresh shell around already deep-frozen parts (a request
 * around derived history) freeze just the shell with `Object.freeze`.
 */
export declare function deepFreeze<T>(value: T): T;
/** Records that `value` is frozen all the way down; callers must have made it so. */
export declare function markDeepFrozen(value: unknown): void;
/**
 * True when `value` can never change: a primitive, or a root that `deepFreeze` or a freezing
 * `snapshotJson` produced. Lets hot paths compare such values by identity instead of by content.
 */
export declare function isDeepFrozen(value: unknown): boolean;
