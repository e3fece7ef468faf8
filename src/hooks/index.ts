// Public API of the hooks layer (depends on errors).
export { HookBus, type HookBusOptions } from "./bus.js";
export { loadPlugin, type Plugin, type PluginHost } from "./plugin.js";
export { HookError } from "./types.js";
export type {
  AnyHook,
  Dispose,
  EmitHook,
  HookErrorReporter,
  HookMap,
  Listener,
  NamesOfMode,
  Next,
  PayloadOf,
  ResultOf,
  SerialHook,
  WaterfallHook,
} from "./types.js";
