// `keelson cache <id | FILE>`: the session's prompt-cache economics from the log alone — the
// table from cache-table.ts, or the full report as JSON (both escaped for the terminal).
import type { Command } from "commander";
import { cacheReportOf, renderCacheReport } from "./cache-table.js";
import { loadLog } from "./log-source.js";
import { commandSummary } from "./commands.js";
import { terminalJson, terminalText } from "./terminal-text.js";

export function registerCache(program: Command): void {
  program
    .command("cache")
    .description(commandSummary("cache"))
    .argument("<id|file>", "session id or path to a .jsonl log")
    .option("--json", "print the report as JSON")
    .action(async (target: string, flags: { json?: boolean }) => {
      const { session } = await loadLog(target);
      const text =
        flags.json === true
          ? terminalJson(JSON.stringify(await cacheReportOf(session), null, 2))
          : terminalText(await renderCacheReport(session));
      process.stdout.write(`${text}\n`);
    });
}
