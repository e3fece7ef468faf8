#!/usr/bin/env node
// The `keelson` launcher: runs the compiled CLI in dist/. A clone that was never installed has
// no build yet, so it says how to make one instead of printing a stack trace.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const main = new URL("../dist/cli/main.js", import.meta.url);
if (!existsSync(main)) {
  const root = fileURLToPath(new URL("..", import.meta.url));
  process.stderr.write(`keelson: the compiled build is missing (no dist/); run \`npm ci\` (or \`npm run build\`) in ${root}\n`);
  process.exit(1);
}
if (process.argv.includes("--debug")) process.setSourceMapsEnabled(true); // stacks point into src/
await import(main.href);
