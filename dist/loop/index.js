// Public API of the loop layer (depends on every layer above it).
export { createAgent } from "./agent.js";
export { globalHooks, globalPrompt } from "./global.js";
export { freezePrefix } from "./prefix.js";
export { buildRequest, checkInvariant, isLoopBuilt, loggedPartOf } from "./request.js";
export { forkAgent, resumeAgent } from "./resume.js";
export { retryDelay } from "./retry.js";
export { LoopError } from "./types.js";
//# sourceMappingURL=index.js.map