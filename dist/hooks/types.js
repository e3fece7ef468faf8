// The hook bus's vocabulary: how an event map declares each hook's mode and signature, and the
// listener shape each mode takes.
import { KeelsonError } from "../errors/index.js";
/** Misuse of the bus: a waterfall listener that called `next()` twice. */
export class HookError extends KeelsonError {
}
//# sourceMappingURL=types.js.map