// The cache chart: per request a stacked bar of reported cache reads, cache writes and uncached
// input, the expected cacheable prefix (the structural estimate) as a line, the first differing
// segment on hover; then the totals and cost. The numbers are `keelson cache --json`'s (the
// endpoint serves that very report).
import { useEffect, useState } from "preact/hooks";
import type { CacheReport } from "../../audit/index.js";
import { getJson, sessionPath } from "./api.js";

const H = 240;
const BAR = 18;
const GAP = 8;
const LEFT = 56;

export function CacheView({ id, version }: { id: string; version: number }) {
  const [report, setReport] = useState<CacheReport>();
  const [error, setError] = useState<string>();
  const [hover, setHover] = useState<number>();
  useEffect(() => {
    getJson<CacheReport>(sessionPath(id, "/cache")).then(setReport, (e: Error) => setError(e.message));
  }, [id, version]);
  if (error !== undefined) return <p class="problem">{error}</p>;
  if (report === undefined) return <p class="muted">loading…</p>;
  const lines = report.requests;
  const max = Math.max(
    1,
    ...lines.map((l) =>
      Math.max(
        l.cacheableTokens,
        (l.usage?.cacheReadTokens ?? 0) + (l.usage?.cacheWriteTokens ?? 0) + (l.usage?.inputTokens ?? 0),
      ),
    ),
  );
  const y = (v: number) => H - (v / max) * H;
  const width = LEFT + lines.length * (BAR + GAP) + GAP;
  const t = report.totals;
  const line = lines
    .map(
      (l, i) =>
        `${LEFT + GAP + i * (BAR + GAP) - GAP / 2},${y(l.cacheableTokens)} ${LEFT + GAP + i * (BAR + GAP) + BAR + GAP / 2},${y(l.cacheableTokens)}`,
    )
    .join(" ");
  const shown = hover === undefined ? undefined : lines[hover];
  return (
    <div class="cache" data-testid="cache">
      <div class="legend">
        <span class="sw read" /> cache read <span class="sw write" /> cache write <span class="sw input" /> uncached
        input <span class="sw line" /> expected cacheable prefix (≈ cl100k)
      </div>
      <div class="chart-box">
        <svg width={width} height={H + 40} data-testid="cache-chart" role="img" aria-label="cache usage per request">
          <text x={4} y={12} class="axis">
            {max}
          </text>
          <text x={4} y={H} class="axis">
            0
          </text>
          <line x1={LEFT} x2={width} y1={H} y2={H} class="axis-line" />
          {lines.map((l, i) => {
            const u = l.usage;
            const read = u?.cacheReadTokens ?? 0;
            const write = u?.cacheWriteTokens ?? 0;
            const input = u?.inputTokens ?? 0;
            const x = LEFT + GAP + i * (BAR + GAP);
            return (
              // biome-ignore lint/a11y/useSemanticElements: an SVG group cannot be a <button>; it takes focus to show its numbers
              <g
                key={i}
                data-testid="bar"
                data-request={`${l.turn}.${l.step}`}
                data-read={read}
                data-write={write}
                data-input={input}
                data-cacheable={l.cacheableTokens}
                data-first-change={l.firstChange ?? ""}
                role="button"
                tabIndex={0}
                aria-label={`request ${l.turn}.${l.step}`}
                onFocus={() => setHover(i)}
                onMouseEnter={() => setHover(i)}
                onMouseLeave={() => setHover(undefined)}
              >
                <rect x={x - GAP / 2} y={0} width={BAR + GAP} height={H} class="hit" />
                <rect x={x} y={y(read)} width={BAR} height={H - y(read)} class="read" />
                <rect x={x} y={y(read + write)} width={BAR} height={H - y(write)} class="write" />
                <rect x={x} y={y(read + write + input)} width={BAR} height={H - y(input)} class="input" />
                <text x={x + BAR / 2} y={H + 14} class="axis" text-anchor="middle">
                  {l.turn}.{l.step}
                </text>
              </g>
            );
          })}
          <polyline points={line} class="cacheable" />
        </svg>
      </div>
      <p class="hover" data-testid="cache-hover">
        {shown === undefined
          ? "hover a bar: its numbers and the first segment that differs from the previous request"
          : `request ${shown.turn}.${shown.step} (${shown.model}): read ${shown.usage?.cacheReadTokens ?? "-"} · write ${shown.usage?.cacheWriteTokens ?? "-"} · input ${shown.usage?.inputTokens ?? "-"} · output ${shown.usage?.outputTokens ?? "-"} · prompt≈${shown.promptTokens} · cacheable≈${shown.cacheableTokens} · first change: ${shown.firstChange ?? (hover === 0 ? "(first request)" : "(extends previous)")}`}
      </p>
      <table class="totals" data-testid="cache-totals">
        <tbody>
          <tr>
            <th>prompt≈</th>
            <th>cacheable≈</th>
            <th>read</th>
            <th>write</th>
            <th>input</th>
            <th>output</th>
            <th>cache-hit share</th>
            <th>cost</th>
          </tr>
          <tr>
            <td>{t.promptTokens}</td>
            <td>{t.cacheableTokens}</td>
            <td>{t.cacheReadTokens}</td>
            <td>{t.cacheWriteTokens}</td>
            <td>{t.inputTokens}</td>
            <td>{t.outputTokens}</td>
            <td>{(t.cacheHitShare * 100).toFixed(1)}%</td>
            <td data-testid="cache-cost">${t.cost.toFixed(5)}</td>
          </tr>
        </tbody>
      </table>
    </div>
  );
}
