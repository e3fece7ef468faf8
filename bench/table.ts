// The one table printer every workload uses: a title, a header row, rows of cells (numbers are
// formatted, strings kept), and notes under the table. Returns the printed text too, so the
// docs can carry exactly what the run printed.

export type Cell = string | number | undefined;

export interface Table {
  readonly title: string;
  readonly columns: readonly string[];
  readonly rows: readonly (readonly Cell[])[];
  readonly notes?: readonly string[];
}

/** A number with 3 significant-ish digits: 1234, 12.3, 1.23, 0.123. */
export function num(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  const a = Math.abs(n);
  if (a >= 100) return n.toFixed(0);
  if (a >= 10) return n.toFixed(1);
  if (a >= 1) return n.toFixed(2);
  return n.toFixed(3);
}

/** `a / b` as a ratio cell, e.g. `0.42×`. */
export function ratio(a: number, b: number): string {
  return `${(a / b).toFixed(2)}×`;
}

export function pct(share: number): string {
  return `${(share * 100).toFixed(1)}%`;
}

const cell = (c: Cell): string => (c === undefined ? "" : typeof c === "number" ? num(c) : c);

/** Prints the table (first column left-aligned, the rest right-aligned) and returns its text. */
export function printTable(table: Table): string {
  const grid = [table.columns.map(String), ...table.rows.map((r) => table.columns.map((_, i) => cell(r[i])))];
  const widths = table.columns.map((_, i) => Math.max(...grid.map((r) => r[i]!.length)));
  const line = (r: readonly string[]): string =>
    r
      .map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join("  ")
      .trimEnd();
  const text = [
    table.title,
    line(grid[0]!),
    widths.map((w) => "-".repeat(w)).join("  "),
    ...grid.slice(1).map(line),
    ...(table.notes ?? []).map((n) => `  ${n}`),
  ].join("\n");
  console.log(`\n${text}`);
  return text;
}
