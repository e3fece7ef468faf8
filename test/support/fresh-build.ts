// vitest globalSetup: the CLI tests run the real launcher, which runs the compiled build in dist/.
// Rebuild it when any source file is newer than the build, so a test never exercises stale code.
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
  if (built >= newestMtime("src") && built >= statSync("tsconfig.build.json").mtimeMs) return;
  try {
    execFileSync(process.execPath, ["node_modules/typescript/bin/tsc", "-p", "tsconfig.build.json"], {
      stdio: "inherit",
    });
  } catch {
    // tsc still emitted dist/; its type errors are `npm run typecheck`'s to report, not a reason to test nothing.
  }
  // as `npm run build` does: declarations naming an optional peer's types are marked @ts-nocheck
  execFileSync(process.execPath, ["scripts/nocheck-optional-declarations.mjs"], { stdio: "inherit" });
}
