// Public API of the audit layer (depends on reconstruct, llm): what a stored log says about
// cost and cache behaviour.
export { cacheReport, } from "./cache-report.js";
//# sourceMappingURL=index.js.map