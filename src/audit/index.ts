// Public API of the audit layer (depends on reconstruct, llm): what a stored log says about
// cost and cache behaviour.
export {
  type CacheReport,
  type CacheReportOptions,
  cacheReport,
  type RequestCacheLine,
  type Segment,
} from "./cache-report.js";
