#!/usr/bin/env node
// `npm test`'s first step: runs `npm run build` unless dist/ is the output of a whole build that is
// newer than everything the build reads. On a fresh clone `npm ci` has just built (prepare), so the
// test run does not build a second time (~5 s of CPU). What counts as the build's inputs: every
// file and folder under src/ (a folder's mtime changes when a file in it is added, renamed or
// deleted, so a removed source is noticed too), the two build scripts, the tsconfigs and
// package.json. What counts as its output: dist/index.js (build-bundle) and dist/inspect/ui/index.html
// (build-ui, the build's last step: a build that failed midway never wrote it, since `rm -rf dist`
// starts each one). `--check` prints whether a build is needed and exits 0 either way; a test
// imports `staleness(root)`.
import { execFileSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const INPUT_FILES = [
  "scripts/build-bundle.mjs",
  "scripts/build-ui.mjs",
  "scripts/nocheck-optional-declarations.mjs",
  "tsconfig.json",
  "tsconfig.build.json",
  "package.json",
];
const OUTPUTS = ["dist/index.js", "dist/inspect/ui/index.html"];

/** The newest mtime of `dir` and of every file and folder below it. */
function newestUnder(dir) {
  let newest = statSync(dir).mtimeMs;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestUnder(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/** Why the build of the repository at `root` is needed, or undefined when its dist/ is up to date. */
export function staleness(root = repo) {
  let built = Number.POSITIVE_INFINITY;
  for (const output of OUTPUTS) {
    try {
      built = Math.min(built, statSync(join(root, output)).mtimeMs);
    } catch {
      return `${output} is missing`;
    }
  }
  const inputs = Math.max(newestUnder(join(root, "src")), ...INPUT_FILES.map((f) => statSync(join(root, f)).mtimeMs));
  return inputs > built ? "a source or build file is newer than dist/" : undefined;
}

/** The script: `--check` says whether a build is needed; without it, builds when one is. */
function main() {
  const reason = staleness();
  if (process.argv.includes("--check")) {
    console.log(reason === undefined ? "dist/ is up to date" : `build needed: ${reason}`);
    return;
  }
  if (reason === undefined) {
    console.log("build-if-stale: dist/ is up to date with src/ and the build files; not rebuilding");
    return;
  }
  console.log(`build-if-stale: ${reason}; running npm run build`);
  try {
    execFileSync("npm", ["run", "build"], { cwd: repo, stdio: "inherit" });
  } catch (error) {
    process.exit(typeof error.status === "number" && error.status !== 0 ? error.status : 1); // npm printed why
  }
}

// Run as a script (a test imports `staleness` only).
if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
