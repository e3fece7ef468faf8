// Keelson's public entry point: re-exports every layer built so far. Subpath exports
// (`keelson/session`, `keelson/header`, …) give one layer at a time.
export * from "./header/index.js";
export * from "./json/index.js";
export * from "./messages/index.js";
export * from "./reconstruct/index.js";
export * from "./session/index.js";
export * from "./store/index.js";
