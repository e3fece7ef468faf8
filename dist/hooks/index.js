// Public API of the hooks layer (depends on errors).
export { HookBus } from "./bus.js";
export { loadPlugin } from "./plugin.js";
export { HookError } from "./types.js";
//# sourceMappingURL=index.js.map