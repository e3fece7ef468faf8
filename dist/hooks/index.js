// Public API of the hooks layer (depends on nothing).
export { HookBus } from "./bus.js";
export { loadPlugin } from "./plugin.js";
//# sourceMappingURL=index.js.map