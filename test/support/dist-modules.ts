// Which source modules a process ran, from the dist/ files it loaded: dist/ is esbuild's entry
// points and shared chunks (scripts/build-bundle.mjs), each holding several modules, and the
// build's metafile says which. Loading a file runs the top level of every module in it, so a
// module counts as loaded when its file was.
import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(import.meta.dirname, "../..");
const META = join(ROOT, "node_modules/.cache/keelson-build/meta.json");

interface Metafile {
  readonly outputs: Record<string, { readonly inputs: Record<string, unknown> }>;
}

/** The source modules (`src/store/listing.ts`, …) in the dist/ files among `urls`, sorted; other URLs are ignored. */
export function sourceModulesOf(urls: readonly string[]): string[] {
  const { outputs } = JSON.parse(readFileSync(META, "utf8")) as Metafile;
  const modules = new Set<string>();
  for (const url of urls) {
    if (!url.startsWith("file:")) continue;
    const output = outputs[relative(ROOT, fileURLToPath(url))];
    if (output === undefined) continue;
    for (const input of Object.keys(output.inputs)) modules.add(input);
  }
  return [...modules].sort();
}
