// A consumer project for the package test: packs Keelson exactly as it is published, then
// installs the tarball into a fresh temporary project from the npm cache (`--prefer-offline`,
// no network needed once `npm ci` has run), the way a user's `npm install keelson` does.
import { execFile } from "node:child_process";
import { lstat, mkdir, mkdtemp, readdir, readFile, rename, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, inject } from "vitest";
import type {} from "../support/pack-global-setup.js";

const run = promisify(execFile);
export const REPO = resolve(import.meta.dirname, "../..");
/** The repo's own tool binaries: the consumer uses them instead of installing its own copies. */
export const TSC = join(REPO, "node_modules/typescript/bin/tsc");
export const ESBUILD = join(REPO, "node_modules/esbuild/bin/esbuild");

export interface Packed {
  readonly tarball: string;
  /** Paths inside the tarball, relative to the package root. */
  readonly files: readonly string[];
}

export interface Result {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * The package as published: scripts/stage-package.mjs stages the current build with its clean
 * manifest (as `npm run stage` does before `npm publish .package`), then `npm pack` of that.
 */
export async function pack(into: string): Promise<Packed> {
  const staged = join(into, "staged");
  await run(process.execPath, [join(REPO, "scripts/stage-package.mjs"), staged], { cwd: REPO });
  const { stdout } = await run("npm", ["pack", "--json", "--pack-destination", into], {
    cwd: staged,
    maxBuffer: 64 * 1024 * 1024,
  });
  const json = JSON.parse(stdout.slice(stdout.indexOf("["))) as {
    filename: string;
    files: { path: string }[];
  }[];
  const [info] = json;
  if (info === undefined) throw new Error(`npm pack printed no package: ${stdout}`);
  return { tarball: join(into, info.filename), files: info.files.map((f) => f.path) };
}

/**
 * Keelson packed once per test run (`pack` into the run's `packDir`), shared by the package test
 * files: the first to call packs under an mkdir lock and records the result; the others wait
 * for that record (a failed pack is recorded too, so they fail with its message, not a timeout).
 */
export async function sharedPack(): Promise<Packed> {
  const dir = inject("packDir");
  const record = join(dir, "packed.json");
  try {
    await mkdir(join(dir, "lock"));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    return packedBy(record);
  }
  let outcome: { packed?: Packed; error?: string };
  try {
    outcome = { packed: await pack(dir) };
  } catch (e) {
    outcome = { error: e instanceof Error ? e.message : String(e) };
  }
  await writeFile(`${record}.partial`, JSON.stringify(outcome));
  await rename(`${record}.partial`, record);
  if (outcome.packed === undefined) throw new Error(`npm pack failed: ${outcome.error}`);
  return outcome.packed;
}

/** The pack another file is making: its record, once written (checked every 100 ms). */
async function packedBy(record: string): Promise<Packed> {
  for (;;) {
    let text: string | undefined;
    try {
      text = await readFile(record, "utf8");
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
    }
    if (text !== undefined) {
      const outcome = JSON.parse(text) as { packed?: Packed; error?: string };
      if (outcome.packed === undefined) throw new Error(`npm pack failed in another test file: ${outcome.error}`);
      return outcome.packed;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * A fresh ESM project with Keelson installed from `tarball`, plus `extra` packages (all from the
 * cache). `linked` packages (`name@version`) are not extracted again: npm resolves the whole tree
 * with them (`--dry-run`: a peer range Keelson declares that they do not satisfy fails here, as
 * in a user's install), then each is linked from this repo's node_modules, where `npm ci`
 * installed that exact version (checked). Extracting the SDKs' ~28,000 files cost ~45 s of CPU
 * per run for nothing the tests read differently.
 */
export async function consumerProject(
  tarball: string,
  extra: readonly string[],
  linked: readonly string[] = [],
): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "keelson-consumer-"));
  await writeFile(
    join(dir, "package.json"),
    `${JSON.stringify({ name: "consumer", version: "1.0.0", private: true, type: "module" }, null, 2)}\n`,
  );
  const install = ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error", tarball, ...extra];
  const options = { cwd: dir, maxBuffer: 64 * 1024 * 1024 };
  if (linked.length > 0) await run("npm", [...install, ...linked, "--dry-run"], options);
  await run("npm", install, options);
  for (const spec of linked) await linkFromRepo(dir, spec);
  return dir;
}

/** Links `name@version` into `dir`'s node_modules from the repo's, which must hold that version. */
async function linkFromRepo(dir: string, spec: string): Promise<void> {
  const at = spec.lastIndexOf("@");
  const name = spec.slice(0, at);
  const source = join(REPO, "node_modules", name);
  const { version } = JSON.parse(await readFile(join(source, "package.json"), "utf8")) as { version: string };
  if (version !== spec.slice(at + 1)) throw new Error(`the repo has ${name}@${version}, not ${spec}: run npm ci`);
  const target = join(dir, "node_modules", name);
  await mkdir(dirname(target), { recursive: true });
  await symlink(source, target, "dir");
}

/**
 * The repo's tsc checking the project in `dir` (`args` after the command). Single-threaded: the
 * suite already keeps every core busy, and tsc's parallel checkers spent ~40% more CPU on the
 * same check (6.1 → 4.3 s for the strictest consumer settings) for no gain in wall time.
 */
export function tscIn(dir: string, args: readonly string[]): Promise<Result> {
  return runIn(dir, process.execPath, [TSC, "--singleThreaded", ...args]);
}

/** Runs `command args` in `cwd`; never throws, returns the exit code and output. */
export function runIn(
  cwd: string,
  command: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
): Promise<Result> {
  return new Promise((done) => {
    execFile(
      command,
      args,
      { cwd, env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? cwd, ...env }, timeout: 120_000 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : 1;
        done({ code, stdout, stderr });
      },
    );
  });
}

/**
 * What a project's install weighs: the bytes of every file under node_modules (their sizes, not
 * the disk blocks they take, so the figure is the same on any filesystem) and the packages npm
 * installed (from package-lock.json, nested copies included).
 */
export async function installedSize(dir: string): Promise<{ bytes: number; packages: string[] }> {
  const entries = await readdir(join(dir, "node_modules"), { recursive: true, withFileTypes: true });
  let bytes = 0;
  for (const entry of entries)
    if (entry.isFile() || entry.isSymbolicLink()) bytes += (await lstat(join(entry.parentPath, entry.name))).size;
  const lock = JSON.parse(await readFile(join(dir, "package-lock.json"), "utf8")) as {
    packages: Record<string, unknown>;
  };
  const packages = Object.keys(lock.packages)
    .filter((path) => path !== "")
    .map((path) => path.slice(path.lastIndexOf("node_modules/") + "node_modules/".length));
  return { bytes, packages };
}

/**
 * For a test file (or describe): Keelson (`sharedPack`) installed with `extra` into a fresh
 * project before its tests, removed after them. Returns the project's directory (once set up).
 */
export function useConsumerProject(extra: readonly string[]): () => string {
  let project: string | undefined;
  beforeAll(async () => {
    project = await consumerProject((await sharedPack()).tarball, extra);
  }, 300_000);
  afterAll(async () => {
    if (project !== undefined) await rm(project, { recursive: true, force: true });
  });
  return () => {
    if (project === undefined) throw new Error("the consumer project is not set up (its beforeAll failed)");
    return project;
  };
}
