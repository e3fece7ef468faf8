#!/usr/bin/env node
// Compiles src/ to the JavaScript the package ships: one esbuild build whose entry points are the
// package's exports, the CLI and the grep worker, split into shared chunks (dist/chunks/), so
// each module exists once however many entry points an application imports (one `KeelsonError`
// class for `keelson` and `keelson/serve` alike). A module per file cost Node 20's ESM loader
// ~1 ms each: `import "keelson"` read 420 files in ~400 ms, the same code in ~45 files ~100 ms
// (W5). Declarations stay tsc's, one per source file (tsconfig.build.json, emitDeclarationOnly).
// Packages stay external (the optional peers are loaded lazily, as in src/). The build's metafile
// (which source module went into which output) goes to node_modules/.cache/keelson-build/, where
// the tests that check what a command loads read it; it is not shipped.
//
// Code that finds a file through `import.meta.url` runs from dist/chunks/ instead of its own
// folder; both sit two levels under the package root, so a path that climbs to the root
// (`../../package.json`) or to a sibling folder (`../builtin-tools/grep-worker.js`) holds from
// either (test/package/dist-entries.test.ts checks that no file at another depth uses
// `import.meta`).
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));

/** dist/x/y.js → src/x/y.ts */
const sourceOf = (distPath) => distPath.replace(/^\.\/dist\//, "src/").replace(/\.js$/, ".ts");

/** Entry points beyond the package's exports: started by path, or loaded by the benchmarks' dist hook. */
const EXTRA_ENTRIES = [
  "src/cli/main.ts", // bin/keelson.js
  "src/builtin-tools/grep-worker.ts", // a worker thread started by URL (regex-search.ts)
  // bench/ imports these modules directly (bench/keelson-from-dist.mjs maps them to dist/)
  "src/store/session-index-file.ts",
  "src/store/jsonl-codec.ts",
  "src/fleet/turn-queries.ts",
  // a reliability child imports it without its layer's index (reliability/fixtures/compiled-script.ts)
  "src/emulator/faults.ts",
];

const entries = new Set(EXTRA_ENTRIES);
for (const target of Object.values(pkg.exports)) if (typeof target === "object") entries.add(sourceOf(target.import));

const result = await build({
  absWorkingDir: root,
  entryPoints: [...entries].sort(),
  outdir: "dist",
  outbase: "src",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  packages: "external",
  chunkNames: "chunks/[name]-[hash]",
  sourcemap: true, // with the sources' text: src/ is not shipped (`--debug` maps stacks to it)
  metafile: true,
  legalComments: "none",
  logLevel: "warning",
  write: false,
});

/**
 * A class that names itself in its own body is emitted as `var X = class _X { … }`, so its
 * `name` would be "_X" (`Session`, for one). esbuild's `keepNames` would fix it by wrapping every
 * named function — closures made per call in the loop's hot paths included — so instead each such
 * class gets its name back in a static block, on its first line (the source map's lines stay).
 */
const SELF_NAMED_CLASS = /\bvar ([A-Za-z_$][\w$]*) = class _\1((?: extends [\w$.]+)?) \{/g;
const named = (text) =>
  text.replace(SELF_NAMED_CLASS, (_all, name, heritage) => {
    return `var ${name} = class _${name}${heritage} { static { Object.defineProperty(this, "name", { value: "${name}" }); }`;
  });

for (const file of result.outputFiles) {
  mkdirSync(dirname(file.path), { recursive: true });
  writeFileSync(file.path, file.path.endsWith(".js") ? named(file.text) : file.contents);
}

const cache = join(root, "node_modules/.cache/keelson-build");
mkdirSync(cache, { recursive: true });
writeFileSync(join(cache, "meta.json"), JSON.stringify(result.metafile));
