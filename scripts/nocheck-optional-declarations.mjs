#!/usr/bin/env node
// Marks each emitted declaration file (dist/**/*.d.ts) that names an optional peer dependency's
// types (a provider SDK, the MCP SDK, zod, OpenTelemetry — peerDependenciesMeta) with
// `// @ts-nocheck`. An application installs only the peers it uses; with `skipLibCheck: false`
// its tsc would otherwise fail on `Cannot find module 'openai'` inside Keelson's declarations.
// Marked, the types resolve as usual when the package is installed and are `any` when it is not
// (docs/decisions/0020). Idempotent; run by `npm run build` and the tests' fresh-build setup.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const MARK = "// @ts-nocheck";
const { peerDependenciesMeta = {} } = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const optional = Object.entries(peerDependenciesMeta)
  .filter(([, meta]) => meta.optional === true)
  .map(([name]) => name);
const escaped = optional.map((name) => name.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")).join("|");
/** `from "pkg"` / `import("pkg/sub")`, in declarations (where every import is a type import). */
const names = new RegExp(`(?:\\bfrom\\s*|\\bimport\\(\\s*)["'](?:${escaped})(?:/[^"']*)?["']`);

let marked = 0;
for (const entry of readdirSync(join(root, "dist"), { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || !entry.name.endsWith(".d.ts")) continue;
  const file = join(entry.parentPath, entry.name);
  const text = readFileSync(file, "utf8");
  const code = text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/\/\/.*$/gm, ""); // a doc comment's example is no import
  if (text.startsWith(MARK) || !names.test(code)) continue;
  writeFileSync(file, `${MARK}\n// (names an optional peer dependency's types: \`any\` when it is not installed)\n${text}`);
  marked++;
}
process.stdout.write(`nocheck-optional-declarations: ${marked} declaration files marked\n`);
