// `--import ./bench/keelson-from-dist.mjs` (after `--import tsx`): every import that resolves to
// a Keelson source file (src/**/*.ts) loads the compiled package file in dist/ instead, so a
// benchmark measures the JavaScript users run — not tsx's development transpile, which wraps
// every function it defines in a `__name(...)` call (a few % of a step) — while the benchmark's
// own TypeScript still runs through tsx. Test helpers that build logs (test/support) load
// Keelson from dist too, so objects never mix the two copies. A dist/ older than src/ is
// refused: the numbers would describe code that no longer exists. dist/ holds the build's entry
// points and shared chunks (scripts/build-bundle.mjs), so a benchmark imports a layer's index or
// a module listed among the build's extra entries; any other source module is refused by name.
import { existsSync, readdirSync, statSync } from "node:fs";
import { register } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const root = join(import.meta.dirname, "..");

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

const built = join(root, "dist", "index.js");
if (!existsSync(built) || statSync(built).mtimeMs < newestMtime(join(root, "src"))) {
  process.stderr.write("keelson-from-dist: dist/ is missing or older than src/ — run `npm run build` first\n");
  process.exit(2);
}

const hook = `
import { existsSync } from "node:fs";
const src = ${JSON.stringify(`${pathToFileURL(join(root, "src")).href}/`)};
const dist = ${JSON.stringify(`${pathToFileURL(join(root, "dist")).href}/`)};
export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  if (!resolved.url.startsWith(src) || !resolved.url.endsWith(".ts") || resolved.url.endsWith(".d.ts")) return resolved;
  const url = dist + resolved.url.slice(src.length, -3) + ".js";
  if (!existsSync(new URL(url)))
    throw new Error("keelson-from-dist: " + resolved.url + " is no entry point of the build: import its layer's index, or add it to EXTRA_ENTRIES in scripts/build-bundle.mjs");
  return { ...resolved, url, format: "module" };
}`;
register(`data:text/javascript,${encodeURIComponent(hook)}`);
