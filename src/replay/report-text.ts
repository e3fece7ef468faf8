// A replay report in words: one line for the verdict, then each differing request — where, the
// first differing segment with the logged and rebuilt values, the logged event that explains it,
// the cache cost — the turns that ended otherwise, and the children. What `keelson replay` prints
// and what `expectReplayIdentical` throws. Plain text: the CLI escapes it for the terminal.
import { segmentLabel } from "./segments.js";
import type { ReplayCacheCost, ReplayReport, RequestDifference } from "./types.js";

const tokens = (n: number): string => n.toLocaleString("en-US");
const usd = (n: number): string => `$${n < 0.01 && n > 0 ? n.toFixed(5) : n.toFixed(4)}`;

export interface ReportTextOptions {
  /** Differences listed before `… N more` (default all). */
  readonly limit?: number;
}

export function replayReportText(report: ReplayReport, options: ReportTextOptions = {}, indent = ""): string {
  const lines: string[] = [`${indent}${verdict(report)}`];
  const limit = options.limit ?? Number.POSITIVE_INFINITY;
  for (const d of report.differences.slice(0, limit)) lines.push(...differenceLines(d, `${indent}  `));
  if (report.differences.length > limit) lines.push(`${indent}  … ${report.differences.length - limit} more`);
  for (const note of report.turns)
    lines.push(`${indent}  turn ${note.turn} ended otherwise: log ${note.logged}; replay ${note.replayed}`);
  for (const child of report.children) {
    if (child.report === undefined)
      lines.push(`${indent}  child ${child.session} (call ${child.callId}) not replayed: ${child.skipped ?? ""}`);
    else lines.push(replayReportText(child.report, options, `${indent}  `));
  }
  return lines.join("\n");
}

function verdict(report: ReplayReport): string {
  const { logged, replayed, identical } = report.requests;
  const own = report.differences.length;
  if (own === 0)
    return `replay of ${report.sessionId}: identical — ${logged} request${logged === 1 ? "" : "s"} rebuilt exactly as logged${report.identical ? "" : " (a child differs)"}`;
  const c = report.cache;
  const r = c.recurringLostTokens;
  const o = c.onceLostTokens;
  const lost =
    r === 0 && o === 0
      ? "nothing lost"
      : [
          ...(r > 0 ? [`${tokens(r)} tokens no longer read from cache over the session's requests`] : []),
          ...(o > 0
            ? [
                `${r > 0 ? "plus " : ""}${tokens(o)} tokens${r > 0 ? "" : " no longer read from cache"} once, where the changed code meets the logged session's cache`,
              ]
            : []),
        ].join(", ") + (c.cost > 0 ? ` (+${usd(c.cost)})` : "");
  return `replay of ${report.sessionId}: ${own} difference${own === 1 ? "" : "s"} — ${identical} of ${logged} logged requests identical, ${replayed} rebuilt; cache: ${lost}`;
}

function differenceLines(d: RequestDifference, indent: string): string[] {
  const where = `request ${d.index + 1} · turn ${d.turn} step ${d.step}${d.stepStartSeq === undefined ? "" : ` · seq ${d.stepStartSeq}`}${d.inherited ? " · inherited from the fork's parent" : ""}`;
  const lines = [`${indent}${where}: ${segmentLabel(d.segment)}`];
  if (d.logged !== undefined) lines.push(`${indent}  log:    ${d.logged}`);
  if (d.replayed !== undefined) lines.push(`${indent}  replay: ${d.replayed}`);
  if (d.explainedBy !== undefined)
    lines.push(`${indent}  explained by seq ${d.explainedBy.seq}: ${d.explainedBy.text}`);
  if (d.also.length > 0) lines.push(`${indent}  also differs: ${d.also.join("; ")}`);
  lines.push(`${indent}  cache: ${cacheText(d.cache)}`);
  return lines;
}

function cacheText(c: ReplayCacheCost): string {
  if (c.expectedTokens === 0) return `nothing lost (the logged request read nothing from cache) · ${c.model}`;
  const recurring =
    c.lostTokens === 0
      ? ""
      : c.recurringLostTokens === c.lostTokens
        ? ", recurring (lost among the rebuilt requests too)"
        : c.recurringLostTokens === 0
          ? ", once (the rebuilt requests extend each other)"
          : `, ${tokens(c.recurringLostTokens)} recurring`;
  return `${tokens(c.lostTokens)} of ${tokens(c.expectedTokens)} cached tokens no longer read${c.cost === undefined ? "" : ` (+${usd(c.cost)})`}${recurring} · ${c.model}`;
}
