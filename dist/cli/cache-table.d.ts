import type { Session } from "../session/index.js";
/** The report for `session` (src/audit cacheReport with the emulator's cl100k tokenizer and the default ModelRegistry). */
export declare function cacheReportOf(session: Session): Promise<import("../audit/cache-report.js").CacheReport>;
export declare function renderCacheReport(session: Session): Promise<string>;
/** A fixed-width bar of a 0..1 share plus its percentage; blank when nothing was reported. */
export declare function shareBar(share: number | undefined, width?: number): string;
