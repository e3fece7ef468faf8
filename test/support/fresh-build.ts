// vitest globalSetup: the CLI tests run the real launcher, which runs the compiled build in dist/.
// Rebuild it when any source file (or the build's own scripts) is newer than the build, so a test
// never exercises stale code.
import { execFileSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

export default function setup(): void {
  let built = 0;
  try {
    built = statSync("dist/index.js").mtimeMs;
  } catch {
    // no build yet
  }
  const inputs = [
    newestMtime("src"),
    statSync("tsconfig.build.json").mtimeMs,
    statSync("scripts/build-bundle.mjs").mtimeMs,
  ];
  if (inputs.every((input) => built >= input)) return;
  try {
    execFileSync(process.execPath, ["node_modules/typescript/bin/tsc", "-p", "tsconfig.build.json"], {
      stdio: "inherit",
    });
  } catch {
    // tsc still emitted the declarations; its type errors are `npm run typecheck`'s to report, not a reason to test nothing.
  }
  // the JavaScript: esbuild, entry points and shared chunks (scripts/build-bundle.mjs)
  execFileSync(process.execPath, ["scripts/build-bundle.mjs"], { stdio: "inherit" });
  // as `npm run build` does: declarations naming an optional peer's types are marked @ts-nocheck
  execFileSync(process.execPath, ["scripts/nocheck-optional-declarations.mjs"], { stdio: "inherit" });
}
