export { type CacheReport, type CacheReportOptions, cacheReport, type RequestCacheLine, type Segment, } from "./cache-report.js";
