// `keelson cache <id | FILE>`: the session's prompt-cache economics from the log alone
// (src/audit cacheReport with the emulator's cl100k tokenizer and the default ModelRegistry):
// per request the cacheable estimate against the reported read / write / input / output tokens
// and the first changed segment, a bar of the cache-read share, then totals with cost.
import type { Command } from "commander";
import { loadLog } from "./log-source.js";

const BAR_WIDTH = 20;

export function registerCache(program: Command): void {
  program
    .command("cache")
    .description("print the cache report of a stored session")
    .argument("<id|file>", "session id or path to a .jsonl log")
    .option("--json", "print the report as JSON")
    .action(async (target: string, flags: { json?: boolean }) => {
      const { session } = await loadLog(target);
      // Heavy layers (the SDKs behind llm) load only in the commands that need them.
      const [{ cacheReport }, { countTokens }, { ModelRegistry }] = await Promise.all([import("../audit/index.js"), import("../emulator/index.js"), import("../llm/index.js")]);
      const report = cacheReport(session.events, { countTokens, models: new ModelRegistry() });
      if (flags.json === true) {
        process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
        return;
      }
      const out = [`cache report for session ${session.id} (${report.requests.length} requests; ≈ = estimated with cl100k)`, ""];
      out.push(`${"request".padEnd(8)} ${"prompt≈".padStart(8)} ${"cacheable≈".padStart(10)} ${"read".padStart(7)} ${"write".padStart(7)} ${"input".padStart(7)} ${"output".padStart(7)}  ${"read share".padEnd(BAR_WIDTH + 5)}  first change`);
      for (const line of report.requests) {
        const u = line.usage;
        const total = u === undefined ? 0 : u.inputTokens + u.cacheReadTokens + u.cacheWriteTokens;
        const share = u === undefined || total === 0 ? undefined : u.cacheReadTokens / total;
        out.push(
          [
            `${line.turn}.${line.step}`.padEnd(8),
            String(line.promptTokens).padStart(8),
            String(line.cacheableTokens).padStart(10),
            num(u?.cacheReadTokens),
            num(u?.cacheWriteTokens),
            num(u?.inputTokens),
            num(u?.outputTokens),
            ` ${bar(share)}`,
            ` ${line.firstChange ?? (line === report.requests[0] ? "(first request)" : "(extends previous)")}`,
          ].join(" "),
        );
      }
      const t = report.totals;
      out.push(
        "",
        `totals: prompt≈${t.promptTokens} cacheable≈${t.cacheableTokens} · read ${t.cacheReadTokens} · write ${t.cacheWriteTokens} · input ${t.inputTokens} · output ${t.outputTokens}`,
        `cache-hit share ${(t.cacheHitShare * 100).toFixed(1)}% · cost $${t.cost.toFixed(5)}`,
      );
      process.stdout.write(`${out.join("\n")}\n`);
    });
}

function num(value: number | undefined): string {
  return String(value ?? "-").padStart(7);
}

/** A fixed-width bar of a 0..1 share plus its percentage; blank when nothing was reported. */
function bar(share: number | undefined): string {
  if (share === undefined) return `${"·".repeat(BAR_WIDTH)}    -`;
  const filled = Math.round(share * BAR_WIDTH);
  return `${"█".repeat(filled)}${"░".repeat(BAR_WIDTH - filled)} ${`${Math.round(share * 100)}%`.padStart(4)}`;
}
