// The cache report exactly as `keelson cache --json` computes it: src/audit's `cacheReport` over
// the events with the emulator's cl100k tokenizer and the default ModelRegistry (the same
// options as src/cli/cache-table.ts; test/inspect pins equality with the CLI's output).
import { type CacheReport, cacheReport } from "../audit/index.js";
import { countTokens } from "../emulator/index.js";
import { ModelRegistry } from "../llm/index.js";
import type { Session } from "../session/index.js";

export function cacheReportOf(session: Session): CacheReport {
  return cacheReport(session.events, { countTokens, models: new ModelRegistry() });
}

/** The JSON text `keelson cache --json` prints (without its final newline). */
export function cacheReportText(session: Session): string {
  return JSON.stringify(cacheReportOf(session), null, 2);
}
