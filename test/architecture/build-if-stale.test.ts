// scripts/build-if-stale.mjs, `npm test`'s first step: it skips the build only when dist/ holds a
// whole build newer than every input — a changed, added or deleted source, a changed build file
// or a missing output makes it build. Checked on a small copy of the layout in a temp directory:
// its `staleness(root)` in this process, the script itself (a copy in that layout) where it builds.
import { execFile } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { afterEach, beforeEach, expect, test } from "vitest";

const run = promisify(execFile);
const SCRIPT = join(import.meta.dirname, "..", "..", "scripts", "build-if-stale.mjs");
const INPUTS = [
  "src/index.ts",
  "src/loop/turn.ts",
  "scripts/build-bundle.mjs",
  "scripts/build-ui.mjs",
  "scripts/nocheck-optional-declarations.mjs",
  "tsconfig.json",
  "tsconfig.build.json",
];
const OUTPUTS = ["dist/index.js", "dist/inspect/ui/index.html"];
/** A build that writes both outputs (what `npm run build` leaves behind), and says so. */
const BUILD = `node -e "const fs=require('fs');fs.mkdirSync('dist/inspect/ui',{recursive:true});for(const f of ${JSON.stringify(OUTPUTS).replaceAll('"', "'")})fs.writeFileSync(f,'');console.log('BUILT')"`;

let root: string;

const write = (path: string, text = ""): void => {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
};
/** Sets the mtime of `path` to `seconds` after the epoch. */
const age = (path: string, seconds: number): void => utimesSync(join(root, path), seconds, seconds);
/** The script's verdict on the temp layout (imported: a module path in a variable is not resolved by tsc). */
const { staleness } = (await import(pathToFileURL(SCRIPT).href)) as { staleness: (root: string) => string | undefined };
const check = (): string => {
  const reason = staleness(root);
  return reason === undefined ? "dist/ is up to date" : `build needed: ${reason}`;
};

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "keelson-build-if-stale-"));
  mkdirSync(join(root, "scripts"));
  copyFileSync(SCRIPT, join(root, "scripts", "build-if-stale.mjs"));
  write("package.json", JSON.stringify({ name: "fake", private: true, scripts: { build: BUILD } }));
  for (const input of INPUTS) write(input);
  for (const output of OUTPUTS) write(output);
  // inputs (files and folders) at t = 1000 s, the build's outputs at 2000 s
  for (const path of [...INPUTS, "package.json", "src", "src/loop"]) age(path, 1000);
  for (const output of OUTPUTS) age(output, 2000);
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

test("a build newer than every input is up to date", () => {
  expect(check()).toBe("dist/ is up to date");
});

test.each([
  ["a source changed", () => age("src/loop/turn.ts", 3000)],
  ["a source deleted (its folder's mtime moves)", () => rmSync(join(root, "src/loop/turn.ts"))],
  ["a source added", () => write("src/loop/new.ts")],
  ["a build script changed", () => age("scripts/build-ui.mjs", 3000)],
  ["the bundler script changed", () => age("scripts/build-bundle.mjs", 3000)],
  ["tsconfig.build.json changed", () => age("tsconfig.build.json", 3000)],
  ["package.json changed", () => age("package.json", 3000)],
  ["the bundle's output is older than a source", () => age("dist/index.js", 500)],
])("needs a build when %s", (_case, change) => {
  change();
  expect(check()).toBe("build needed: a source or build file is newer than dist/");
});

test.each(OUTPUTS)("needs a build when %s is missing (a build that failed midway)", (output) => {
  rmSync(join(root, output));
  expect(check()).toBe(`build needed: ${output} is missing`);
});

test("builds a stale tree with `npm run build`, and leaves an up-to-date one alone", async () => {
  rmSync(join(root, "dist"), { recursive: true });
  const said = await run(process.execPath, [join(root, "scripts", "build-if-stale.mjs"), "--check"]);
  expect(said.stdout.trim()).toBe("build needed: dist/index.js is missing"); // --check only says
  expect(existsSync(join(root, "dist"))).toBe(false);
  const stale = await run(process.execPath, [join(root, "scripts", "build-if-stale.mjs")], { cwd: tmpdir() });
  expect(stale.stdout).toContain("BUILT");
  expect(OUTPUTS.every((output) => existsSync(join(root, output)))).toBe(true);
  expect(check()).toBe("dist/ is up to date");
  const fresh = await run(process.execPath, [join(root, "scripts", "build-if-stale.mjs")]);
  expect(fresh.stdout).not.toContain("BUILT");
  expect(fresh.stdout).toContain("up to date");
});

test("a failing build fails the step with its status", async () => {
  write("package.json", JSON.stringify({ name: "fake", private: true, scripts: { build: "exit 3" } }));
  rmSync(join(root, "dist"), { recursive: true });
  const failed = await run(process.execPath, [join(root, "scripts", "build-if-stale.mjs")]).then(
    () => undefined,
    (error: { code?: number }) => error.code,
  );
  expect(failed).toBe(3);
});
