// The layer rule, checked against the code: src/README.md's table says which layers each layer
// may import; every relative import (static, type-only or dynamic) of every file under src/
// must stay inside its own layer or go to an allowed one. The table itself must be acyclic.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { expect, test } from "vitest";

const SRC = resolve(import.meta.dirname, "../../src");

function layerTable(): Map<string, Set<string>> {
  const table = new Map<string, Set<string>>();
  for (const line of readFileSync(join(SRC, "README.md"), "utf8").split("\n")) {
    const row = /^\|\s*`([a-z-]+)`\s*\|.*\|\s*([^|]+?)\s*\|$/.exec(line);
    if (row === null) continue;
    const allowed = row[2]!.trim();
    table.set(row[1]!, new Set(allowed === "—" ? [] : allowed.split(",").map((s) => s.trim())));
  }
  return table;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? sourceFiles(path) : path.endsWith(".ts") ? [path] : [];
  });
}

const layerOf = (file: string): string => relative(SRC, file).split("/")[0]!;
const IMPORT = /(?:from|import)\s*\(?\s*"(\.{1,2}\/[^"]+)"/g;

test("src/README.md lists every layer folder, and its table has no cycle", () => {
  const table = layerTable();
  const folders = readdirSync(SRC, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  expect([...table.keys()].sort()).toEqual(folders);
  const order = [...table.keys()];
  for (const [layer, allowed] of table) {
    if (allowed.has("every layer")) continue;
    for (const dep of allowed) {
      expect(table.has(dep), `${layer} may import unknown layer ${dep}`).toBe(true);
      expect(order.indexOf(dep), `${layer} may import ${dep}, which is not above it`).toBeLessThan(
        order.indexOf(layer),
      );
    }
  }
});

test("every import under src/ stays in its layer or goes to a layer the table allows", () => {
  const table = layerTable();
  const violations: string[] = [];
  for (const file of sourceFiles(SRC)) {
    if (relative(SRC, file) === "index.ts") continue; // the root export draws from every layer
    const from = layerOf(file);
    const allowed = table.get(from);
    for (const match of readFileSync(file, "utf8").matchAll(IMPORT)) {
      const to = layerOf(resolve(dirname(file), match[1]!));
      if (to === from || allowed?.has("every layer") || allowed?.has(to)) continue;
      violations.push(`${relative(SRC, file)} imports ${to} (${match[1]})`);
    }
  }
  expect(violations).toEqual([]);
});
