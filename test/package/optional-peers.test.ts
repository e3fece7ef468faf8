// Optional peer dependencies (docs/decisions/0020): nothing in the build loads a provider SDK,
// pg, the MCP SDK or the tokenizer except through loadOptionalPackage/requireOptionalPackage —
// no static or literal import of them survives in dist/ or src/ (type imports are erased) — and
// the built package, installed with none of them, imports fine and answers each first use with a
// MissingPackageError naming the package, `npm install <name>@<version>` and what needed it.
import { execFile } from "node:child_process";
import { cp, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { OPTIONAL_PACKAGES } from "../../src/errors/index.js";

const REPO = resolve(import.meta.dirname, "../..");
const OPTIONAL = Object.keys(OPTIONAL_PACKAGES);

async function filesUnder(dir: string, ext: RegExp): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile() && ext.test(e.name)).map((e) => join(e.parentPath, e.name));
}

const escaped = (name: string): string => name.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
/** `"pkg"` or `"pkg/sub"` in either quote. */
const specifier = (name: string): string => `["'\`]${escaped(name)}(?:/[^"'\`]*)?["'\`]`;

/** Each way a module can load a package at run time, as [what, pattern]. */
function runtimeLoads(name: string): [string, RegExp][] {
  const spec = specifier(name);
  return [
    ["a static import", new RegExp(`^\\s*import\\s+(?!type\\b)[^;]*?\\bfrom\\s*${spec}`, "m")],
    ["a side-effect import", new RegExp(`^\\s*import\\s*${spec}`, "m")],
    ["a re-export", new RegExp(`^\\s*export\\s+(?!type\\b)[^;]*?\\bfrom\\s*${spec}`, "m")],
    ["a literal dynamic import", new RegExp(`(?<!typeof\\s)\\bimport\\(\\s*${spec}\\s*\\)`)],
    ["a require", new RegExp(`\\brequire\\(\\s*${spec}\\s*\\)`)],
  ];
}

function offences(files: readonly { file: string; text: string }[]): string[] {
  const found: string[] = [];
  for (const { file, text } of files)
    for (const name of OPTIONAL)
      for (const [what, pattern] of runtimeLoads(name))
        if (pattern.test(text)) found.push(`${file.slice(REPO.length + 1)}: ${what} of ${name}`);
  return found;
}

describe("no runtime import of an optional peer dependency", () => {
  test("the scan catches each way of loading one (it is not vacuous)", () => {
    const samples = [
      'import OpenAI from "openai";',
      "import { Pool } from 'pg';",
      'import "js-tiktoken/lite";',
      'export { Client } from "@modelcontextprotocol/sdk/client/index.js";',
      'const sdk = await import("@anthropic-ai/sdk");',
      'const { Tiktoken } = require("js-tiktoken/lite");',
    ];
    expect(samples.map((text) => offences([{ file: `${REPO}/sample.js`, text }]).length)).toEqual([1, 1, 1, 1, 1, 1]);
    const allowed = [
      'import type OpenAI from "openai";',
      'export type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";',
      'type Sdk = typeof import("@anthropic-ai/sdk");',
      'loadOptionalPackage("pg", "the PostgreSQL store");',
      'import { Pool } from "pgx";',
    ];
    expect(allowed.flatMap((text) => offences([{ file: `${REPO}/sample.js`, text }]))).toEqual([]);
  });

  test("src/ imports them only as types", async () => {
    const files = await filesUnder(join(REPO, "src"), /\.tsx?$/);
    const read = await Promise.all(files.map(async (file) => ({ file, text: await readFile(file, "utf8") })));
    expect(read.length).toBeGreaterThan(100);
    expect(offences(read)).toEqual([]);
  });

  test("the emitted dist/ never loads them except through the loader", async () => {
    const files = await filesUnder(join(REPO, "dist"), /\.js$/);
    const read = await Promise.all(files.map(async (file) => ({ file, text: await readFile(file, "utf8") })));
    expect(read.length).toBeGreaterThan(100);
    expect(offences(read)).toEqual([]);
  });
});

test("every emitted declaration that names an optional peer's types is marked @ts-nocheck", async () => {
  // scripts/nocheck-optional-declarations.mjs: a consumer with skipLibCheck off and without that
  // peer gets `any` for its types instead of "Cannot find module" (the package test compiles one)
  const files = await filesUnder(join(REPO, "dist"), /\.d\.ts$/);
  const naming: string[] = [];
  const unmarked: string[] = [];
  for (const file of files) {
    const text = await readFile(file, "utf8");
    const code = text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/\/\/.*$/gm, "");
    if (!OPTIONAL.some((name) => new RegExp(`(?:\\bfrom\\s*|\\bimport\\(\\s*)${specifier(name)}`).test(code))) continue;
    naming.push(file);
    if (!text.startsWith("// @ts-nocheck\n")) unmarked.push(file.slice(REPO.length + 1));
  }
  expect(naming.length).toBeGreaterThan(5);
  expect(unmarked).toEqual([]);
});

describe("the built package with no optional peer installed", () => {
  let dir: string;
  beforeAll(async () => {
    // node_modules/keelson = a copy of the build; its regular dependencies are linked from the
    // repo (Node resolves their own dependencies from where they really are); nothing else.
    dir = await mkdtemp(join(tmpdir(), "keelson-no-peers-"));
    const pkg = join(dir, "node_modules", "keelson");
    await mkdir(pkg, { recursive: true });
    await cp(join(REPO, "dist"), join(pkg, "dist"), { recursive: true });
    const manifest = JSON.parse(await readFile(join(REPO, "package.json"), "utf8")) as {
      dependencies: Record<string, string>;
    };
    await writeFile(join(pkg, "package.json"), await readFile(join(REPO, "package.json"), "utf8"));
    for (const name of Object.keys(manifest.dependencies)) {
      await mkdir(join(dir, "node_modules", name, ".."), { recursive: true });
      await symlink(join(REPO, "node_modules", name), join(dir, "node_modules", name), "dir");
    }
    await writeFile(join(dir, "package.json"), '{ "type": "module" }\n');
  }, 60_000);
  afterAll(async () => {
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  /** Runs an ESM script in the project; its last stdout line is JSON. */
  function run(script: string): Promise<{ out: Record<string, unknown>; stderr: string }> {
    return new Promise((done, fail) => {
      execFile(
        process.execPath,
        ["--input-type=module", "-e", script],
        { cwd: dir, timeout: 60_000, env: { PATH: process.env.PATH ?? "", HOME: dir } },
        (error, stdout, stderr) => {
          const last = stdout.trim().split("\n").at(-1) ?? "";
          try {
            done({ out: JSON.parse(last) as Record<string, unknown>, stderr });
          } catch {
            fail(new Error(`no JSON from the script (${String(error)}): ${stdout}\n${stderr}`));
          }
        },
      );
    });
  }

  const caught = `(e) => ({ name: e.name, code: e.code, packageName: e.packageName, installCommand: e.installCommand, message: e.message })`;

  test("importing keelson and every subpath works", async () => {
    const manifest = JSON.parse(await readFile(join(REPO, "package.json"), "utf8")) as {
      exports: Record<string, unknown>;
    };
    const subpaths = Object.keys(manifest.exports).filter((s) => s !== "./package.json");
    const imports = subpaths.map((s) => `await import(${JSON.stringify(`keelson${s.slice(1)}`)});`).join("\n");
    const { out } = await run(`${imports}\nconsole.log(JSON.stringify({ imported: ${subpaths.length} }));`);
    expect(out).toEqual({ imported: subpaths.length });
  });

  test.each([
    ["@anthropic-ai/sdk", `new AnthropicProvider({ apiKey: "k", baseURL: "http://127.0.0.1:9" })`, "AnthropicProvider"],
    [
      "openai",
      `new OpenAICompatibleProvider({ flavor: "openai", apiKey: "k", baseURL: "http://127.0.0.1:9/v1" })`,
      "OpenAICompatibleProvider",
    ],
  ])("a turn on the %s provider ends in a missing-package error naming the install", async (name, make) => {
    const { out } = await run(`import { AnthropicProvider, OpenAICompatibleProvider, createAgent } from "keelson";
const agent = createAgent({ provider: ${make}, model: "m" });
const outcome = await agent.send("hi");
const ended = agent.session.events.find((e) => e.type === "turn/end");
console.log(JSON.stringify({ reason: outcome.reason, logged: ended?.data }));
await agent.dispose();`);
    const install = `npm install ${name}@${OPTIONAL_PACKAGES[name]}`;
    expect(out.reason).toMatchObject({ kind: "error", code: "missing-package" });
    expect((out.reason as { message: string }).message).toBe(
      `the package "${name}" is not installed, and the ${name === "openai" ? "OpenAI-compatible" : "Anthropic"} provider (${name === "openai" ? "OpenAICompatibleProvider" : "AnthropicProvider"}) needs it: run \`${install}\``,
    );
    expect(JSON.stringify(out.logged)).toContain("missing-package");
  });

  test("startEmulator is a MissingPackageError for js-tiktoken", async () => {
    const { out } = await run(`import { startEmulator } from "keelson";
console.log(JSON.stringify(await startEmulator().then(async (e) => { await e.close(); return "started"; }, ${caught})));`);
    expect(out).toMatchObject({
      name: "MissingPackageError",
      code: "missing-package",
      packageName: "js-tiktoken",
      installCommand: `npm install js-tiktoken@${OPTIONAL_PACKAGES["js-tiktoken"]}`,
    });
    expect(out.message).toContain("the emulator's tokenizer");
  });

  test("the PostgreSQL store's first connect is a MissingPackageError for pg", async () => {
    const { out } = await run(`import { PostgresSessionStore } from "keelson";
const store = new PostgresSessionStore({ url: "postgres://u@127.0.0.1:9/db" });
console.log(JSON.stringify(await store.load("s").then(() => "loaded", ${caught})));
await store.close?.();`);
    expect(out).toMatchObject({ code: "missing-package", packageName: "pg", installCommand: "npm install pg@8.23.1" });
    expect(out.message).toContain("the PostgreSQL store");
  });

  test("an agent with MCP servers is a MissingPackageError for the MCP SDK", async () => {
    const { out } = await run(`import { createAgent, mcpTools, ScriptedProvider } from "keelson";
const plugin = mcpTools({ servers: { fx: { command: "node", args: ["-e", ""] } } });
const agent = createAgent({ provider: new ScriptedProvider([{ text: "hi" }]), model: "scripted:m", plugins: [plugin] });
console.log(JSON.stringify(await plugin.ready(agent).then(() => "ready", ${caught})));
await agent.dispose();`);
    expect(out).toMatchObject({
      name: "MissingPackageError",
      code: "missing-package",
      packageName: "@modelcontextprotocol/sdk",
      installCommand: `npm install @modelcontextprotocol/sdk@${OPTIONAL_PACKAGES["@modelcontextprotocol/sdk"]}`,
    });
  });
});
