// Keelson's public entry point: re-exports every layer. Subpath exports (`keelson/session`,
// `keelson/loop`, …) give one layer at a time.
export * from "./header/index.js";
export * from "./hooks/index.js";
export * from "./json/index.js";
export * from "./llm/index.js";
export * from "./loop/index.js";
export * from "./messages/index.js";
export * from "./prompt/index.js";
export * from "./reconstruct/index.js";
export * from "./session/index.js";
export * from "./store/index.js";
export * from "./tools/index.js";
export * from "./audit/index.js";
export * from "./emulator/index.js";
export * from "./context/index.js";
export * from "./compaction/index.js";
//# sourceMappingURL=index.js.map