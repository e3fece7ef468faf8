import { cacheReportOf, renderCacheReport } from "./cache-table.js";
import { loadLog } from "./log-source.js";
import { summaryOf } from "./commands.js";
export function registerCache(program) {
    program
        .command("cache")
        .description(summaryOf("cache"))
        .argument("<id|file>", "session id or path to a .jsonl log")
        .option("--json", "print the report as JSON")
        .action(async (target, flags) => {
        const { session } = await loadLog(target);
        const text = flags.json === true ? JSON.stringify(await cacheReportOf(session), null, 2) : await renderCacheReport(session);
        process.stdout.write(`${text}\n`);
    });
}
//# sourceMappingURL=cache-command.js.map