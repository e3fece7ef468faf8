// The context layer's vocabulary: the options of each session-prefix contributor, a discovered
// skill, and the layer's error type. Every contributor's output is a pure function of the
// filesystem state it reads (no clocks, no per-turn facts), so an unchanged tree always renders
// the same bytes and the provider's prefix cache holds across instances.
import { KeelsonError } from "../errors/index.js";
export class ContextError extends KeelsonError {
}
/** Validates a positive-integer option at plugin creation (a typo fails loudly, not per turn). */
export function positiveInteger(value, fallback, name) {
    if (value === undefined)
        return fallback;
    if (!Number.isSafeInteger(value) || value <= 0)
        throw new ContextError("invalid-options", `${name} must be a positive integer, got ${String(value)}`);
    return value;
}
//# sourceMappingURL=types.js.map