// The build's entry points share one copy of each module (scripts/build-bundle.mjs: esbuild with
// shared chunks). Imported in a plain Node process from dist/ — as an installed package runs — a
// name that several of the package's exports offer is the same value from each (one
// `KeelsonError`, one `Session` class, whether the app imports `keelson` or `keelson/session`),
// and no exported function or class was renamed by the bundler, nor any class at all (error
// classes report `constructor.name`).
import { execFile } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import { pathToFileURL } from "node:url";
import { expect, test } from "vitest";

const REPO = resolve(import.meta.dirname, "../..");

/** Exports whose value is, by design, a function of another name, or another function of the same name. */
const RENAMED = { validateSessionHeader: "validateSessionMeta", decodeHeaderLine: "decodeMetaLine" };
const UNRELATED_SAME_NAME = ["summarize"]; // ./compaction's summarizer and ./builtin-tools' output summary

const CHECK = `
const exportsMap = JSON.parse(process.argv[1]);
const renamed = JSON.parse(process.argv[2]);
const unrelated = JSON.parse(process.argv[3]);
const first = new Map();
const problems = [];
let checked = 0;
for (const [entry, target] of Object.entries(exportsMap)) {
  if (typeof target !== "object") continue;
  const module = await import(new URL(target.import, process.argv[4]).href);
  for (const [name, value] of Object.entries(module)) {
    checked++;
    if (typeof value === "function" && value.name !== (renamed[name] ?? name))
      problems.push(entry + ": " + name + " is named " + JSON.stringify(value.name));
    const earlier = first.get(name);
    if (earlier === undefined) first.set(name, { entry, value });
    else if (earlier.value !== value && !unrelated.includes(name))
      problems.push(name + " differs between " + earlier.entry + " and " + entry);
  }
}
console.log(JSON.stringify({ checked, problems }));
`;

test("every export entry in dist/ shares its modules with the others, and keeps its names", async () => {
  const pkg = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { exports: Record<string, unknown> };
  const out = await new Promise<string>((done, fail) =>
    execFile(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        CHECK,
        JSON.stringify(pkg.exports),
        JSON.stringify(RENAMED),
        JSON.stringify(UNRELATED_SAME_NAME),
        pathToFileURL(`${REPO}/`).href,
      ],
      { cwd: REPO, timeout: 60_000 },
      (error, stdout, stderr) => (error === null ? done(stdout) : fail(new Error(stderr))),
    ),
  );
  const { checked, problems } = JSON.parse(out) as { checked: number; problems: string[] };
  expect(problems).toEqual([]);
  expect(checked).toBeGreaterThan(500); // every entry was imported
}, 60_000);

const DIST = join(REPO, "dist");

/** The package's JavaScript in dist/ (not the inspector's browser bundle): path from dist/, text. */
function distScripts(): { path: string; text: string }[] {
  return readdirSync(DIST, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith(".js") && !e.parentPath.startsWith(join(DIST, "inspect", "ui")))
    .map((e) => ({
      path: relative(DIST, join(e.parentPath, e.name)),
      text: readFileSync(join(e.parentPath, e.name), "utf8"),
    }));
}

test("no class in dist/ was renamed by the bundler (a clash of two modules' names gives `X2`)", () => {
  const renamed = distScripts().flatMap(({ path, text }) =>
    [...text.matchAll(/\bvar ([A-Za-z_$][\w$]*\d) = class\b/g)].map((match) => `${path}: ${match[1]}`),
  );
  expect(renamed).toEqual([]);
});

test("every dist/ file that finds files through import.meta sits two levels under the package root", () => {
  // src/x/y.ts and dist/chunks/z.js are at the same depth, so `../../package.json` and
  // `../builtin-tools/grep-worker.js` hold from either; an entry at dist/ itself would break them.
  const elsewhere = distScripts()
    .filter(({ path, text }) => path.split(sep).length !== 2 && text.includes("import.meta"))
    .map(({ path }) => path);
  expect(elsewhere).toEqual([]);
});
