// The package as it ships: `npm pack` (once per run, shared with the other package test files:
// consumer.ts `sharedPack`), installed from the tarball into a fresh project. Plain
// `node app.mjs` runs an agent on the emulator; CommonJS `require("keelson")` works on Node
// ≥ 20.19; the consumer's own `tsc` passes under common compiler settings with zero errors;
// an esbuild bundle of the app runs; the tarball holds no tests, benches or configs, ships the docs
// its README links to and a manifest without scripts or dev dependencies. Provider SDKs, pg,
// the MCP SDK and the tokenizer are optional peers (decision 0020): this consumer installs them
// all (npm resolves them with Keelson; they are linked from the repo's copies, not extracted
// again: consumer.ts). The other consumers have files of their own, so their installs run in parallel:
// zod3-project.test.ts (zod is the application's) and hello-world.test.ts (keelson + the
// Anthropic SDK only).
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { OPTIONAL_PACKAGES } from "../../src/errors/index.js";
import { COMPILER_SETTINGS } from "./compiler-settings.js";
import { consumerProject, ESBUILD, type Packed, REPO, runIn, sharedPack, TSC, tscIn } from "./consumer.js";

const APP_MJS = `import { createAgent, defineTool, AnthropicProvider, startEmulator, reconstructRequests } from "keelson";
import { z } from "zod";

const emulator = await startEmulator();
const provider = new AnthropicProvider({ apiKey: "emulator", baseURL: emulator.anthropicBaseURL });
const read = defineTool({
  name: "read",
  description: "Read a file (a toy: it answers with the word count)",
  input: z.object({ path: z.string().describe("the file") }),
  execute: ({ path }) => path + ": 42 words",
});
const agent = createAgent({ provider, model: "emulator:emulator-anthropic", system: "Be brief.", tools: [read] });
const outcome = await agent.send("How long is notes.txt?");
const last = agent.session.deriveMessages().at(-1);
console.log(JSON.stringify({ turn: outcome.turn, reason: outcome.reason.kind, requests: reconstructRequests(agent.session.events).length, last }));
await agent.dispose();
await emulator.close();
`;

// Uses the public API's types the way an application does; checked by the consumer's tsc.
const APP_TS = `import {
  type AgentPlugin, type Message, type SessionEvent, type SessionEventPayload, type ToolDefinition, type TurnOutcome,
  builtinTools, createAgent, createCompaction, defineTool, isKeelsonError, jsonSchema, JsonlSessionStore,
  reconstructRequests, resumeAgent, ScriptedProvider, skillsCatalog, StoreError, verifyLog, workspaceBaseline,
  workspaceInstructions,
} from "keelson";
import { foldRequestHeader } from "keelson/header";
import { Session } from "keelson/session";
import { z } from "zod";

const zodTool = defineTool({
  name: "add",
  description: "adds",
  input: z.object({ a: z.number(), b: z.number().default(1) }),
  execute: ({ a, b }) => String(a + b),
});
const jsonTool: ToolDefinition = defineTool({
  name: "echo",
  description: "echoes",
  input: jsonSchema<{ text: string }>({ type: "object", properties: { text: { type: "string" } }, required: ["text"] }),
  execute: ({ text }) => ({ content: [{ type: "text", text }] }),
});
const opener: AgentPlugin = (host) =>
  host.on("agent/session-prefix", async (_payload, next): Promise<readonly Message[]> => [
    { role: "user", content: [{ type: "text", text: "<system-reminder>hi</system-reminder>" }] },
    ...(await next()),
  ]);

export async function main(root: string): Promise<TurnOutcome> {
  const store = new JsonlSessionStore({ root });
  const provider = new ScriptedProvider([{ text: "hello" }]);
  const agent = createAgent({
    provider, model: "scripted:m", store, tools: [zodTool, jsonTool],
    plugins: [opener, builtinTools({ permissions: { mode: "deny" } }), skillsCatalog(), workspaceInstructions(), workspaceBaseline()],
    compaction: createCompaction(), prefixOnResume: "reuse",
  });
  agent.hooks.on("session/event", ({ event }: SessionEventPayload) => {
    const logged: SessionEvent = event;
    void logged.seq;
  });
  const outcome = await agent.send("hi");
  await agent.dispose();
  const resumed = await resumeAgent(store, agent.session.id, { provider, model: "scripted:m" });
  await resumed.dispose();
  const events = resumed.session.events;
  verifyLog(events);
  foldRequestHeader(events);
  void reconstructRequests(events)[0]?.request.messages;
  void Session.create({}).id;
  try { await store.load("nope"); } catch (e) { if (e instanceof StoreError && isKeelsonError(e, "not-found")) void e.code; }
  return outcome;
}
`;

let packed: Packed;
let project: string;

beforeAll(async () => {
  packed = await sharedPack();
  const { devDependencies } = JSON.parse(await readFile(join(REPO, "package.json"), "utf8")) as {
    devDependencies: Record<string, string>;
  };
  // zod, Node's types and every optional peer (the demo and app.mjs use the Anthropic SDK and the
  // emulator's tokenizer, and the consumer's tsc with skipLibCheck off reads the declarations
  // that name the SDKs' types): resolved by npm with Keelson, linked from the repo's copies.
  project = await consumerProject(
    packed.tarball,
    [],
    [
      `zod@${devDependencies.zod}`,
      `@types/node@${devDependencies["@types/node"]}`,
      ...Object.entries(OPTIONAL_PACKAGES).map(([name, version]) => `${name}@${version}`),
    ],
  );
  await writeFile(join(project, "app.mjs"), APP_MJS);
  await writeFile(join(project, "app.ts"), APP_TS);
}, 300_000);

afterAll(async () => {
  if (project !== undefined) await rm(project, { recursive: true, force: true });
});

describe("the tarball", () => {
  test("holds dist/, bin/, README, LICENSE, package.json and the docs — no tests, benches, sources or configs", () => {
    const top = new Set(packed.files.map((f) => f.split("/")[0]));
    expect([...top].sort()).toEqual(["LICENSE", "README.md", "bin", "dist", "docs", "examples", "package.json", "src"]);
    expect(packed.files.filter((f) => /\.test\.|tsconfig|biome|vitest|\.ci\//.test(f))).toEqual([]);
    expect(packed.files.filter((f) => f.startsWith("src/") && !f.endsWith("/README.md"))).toEqual([]);
    expect(packed.files).toContain("dist/index.js");
    expect(packed.files).toContain("dist/index.d.ts");
    expect(packed.files).toContain("dist/index.js.map");
    expect(packed.files).toContain("bin/keelson.js");
  });

  test("every relative link of the shipped README points at a file the package ships", async () => {
    const readme = await readFile(join(project, "node_modules/keelson/README.md"), "utf8");
    const targets = [...readme.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)]
      .map((m) => m[1] ?? "")
      .filter((t) => !/^[a-z]+:/.test(t));
    expect(targets.length).toBeGreaterThan(20);
    const missing = targets.filter(
      (t) => !packed.files.some((f) => f === t || f.startsWith(`${t.replace(/\/$/, "")}/`)),
    );
    expect(missing).toEqual([]);
  });

  test("its manifest is clean: no scripts, dev dependencies or allowScripts (npm sees no install scripts)", async () => {
    const manifest = JSON.parse(await readFile(join(project, "node_modules/keelson/package.json"), "utf8")) as Record<
      string,
      unknown
    >;
    expect(Object.keys(manifest)).not.toContain("scripts");
    expect(Object.keys(manifest)).not.toContain("devDependencies");
    expect(Object.keys(manifest)).not.toContain("allowScripts");
    expect(manifest.dependencies).toBeDefined();
    expect(manifest.bin).toEqual({ keelson: "bin/keelson.js" });
  });

  test("the provider SDKs, pg, the MCP SDK and the tokenizer are optional peers, never dependencies", async () => {
    const manifest = JSON.parse(await readFile(join(project, "node_modules/keelson/package.json"), "utf8")) as {
      dependencies: Record<string, string>;
      peerDependencies: Record<string, string>;
      peerDependenciesMeta: Record<string, { optional?: boolean }>;
    };
    for (const name of Object.keys(OPTIONAL_PACKAGES)) {
      expect(manifest.dependencies[name], name).toBeUndefined();
      expect(manifest.peerDependencies[name], name).toBeDefined();
      expect(manifest.peerDependenciesMeta[name]?.optional, name).toBe(true);
    }
  });

  test("every subpath export resolves to a file in the tarball, with types", async () => {
    const manifest = JSON.parse(await readFile(join(project, "node_modules/keelson/package.json"), "utf8")) as {
      exports: Record<string, string | { types: string; import: string; default: string }>;
    };
    for (const [subpath, target] of Object.entries(manifest.exports)) {
      if (typeof target === "string") continue;
      expect(packed.files, subpath).toContain(target.import.slice(2));
      expect(packed.files, subpath).toContain(target.types.slice(2));
    }
  });
});

describe("a consumer project", () => {
  test("`npx keelson demo` runs offline from the installed package, as the README's first steps say", async () => {
    const result = await runIn(project, join(project, "node_modules/.bin/keelson"), ["demo"], {
      KEELSON_HOME: join(project, ".keelson-home"),
    });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/demo: all checks passed/);
  }, 120_000);

  test("plain `node app.mjs` runs an agent with a zod tool on the emulator", async () => {
    const result = await runIn(project, process.execPath, ["app.mjs"]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const out = JSON.parse(result.stdout) as { turn: number; reason: string; requests: number; last: unknown };
    expect(out).toMatchObject({ turn: 1, reason: "completed", requests: 2 });
    expect(JSON.stringify(out.last)).toContain("notes.txt: 42 words");
  }, 60_000);

  test("importing keelson loads no provider SDK, tokenizer, zod, pg, MCP SDK or OpenTelemetry", async () => {
    // A module hook that appends every URL the import resolves to a file (synchronously: the hooks
    // run on a thread of their own, whose writes to stdout can be lost at exit).
    const trace = join(project, "resolved.txt");
    await writeFile(
      join(project, "trace-hooks.mjs"),
      `import { appendFileSync } from "node:fs";
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  appendFileSync(${JSON.stringify(trace)}, result.url + "\\n");
  return result;
}
`,
    );
    await writeFile(
      join(project, "trace.mjs"),
      `import { register } from "node:module";\nregister("./trace-hooks.mjs", import.meta.url);\n`,
    );
    const result = await runIn(project, process.execPath, [
      "--import",
      "./trace.mjs",
      "--input-type=module",
      "-e",
      'import "keelson";',
    ]);
    expect(result.code).toBe(0);
    const loaded = (await readFile(trace, "utf8")).split("\n").filter((url) => url.includes("/node_modules/"));
    expect(loaded.some((url) => url.includes("/node_modules/keelson/dist/index.js"))).toBe(true);
    expect(
      loaded.filter((url) =>
        /\/node_modules\/(@anthropic-ai|openai|js-tiktoken|zod|pg|pg-[a-z]+|@modelcontextprotocol|@opentelemetry)\//.test(
          url,
        ),
      ),
    ).toEqual([]);
  }, 60_000);

  test("CommonJS require('keelson') works on this Node (≥ 20.19)", async () => {
    await writeFile(
      join(project, "app.cjs"),
      `const { createAgent, ScriptedProvider } = require("keelson");
const agent = createAgent({ provider: new ScriptedProvider([{ text: "hi from cjs" }]), model: "scripted:m" });
agent.send("hello").then(async (outcome) => {
  console.log(outcome.reason.kind, JSON.stringify(agent.session.deriveMessages().at(-1).content));
  await agent.dispose();
});
`,
    );
    const result = await runIn(project, process.execPath, ["--no-warnings", "app.cjs"]);
    expect(result.stderr).toBe("");
    expect(result.stdout.trim()).toBe(`completed [{"type":"text","text":"hi from cjs"}]`);
  }, 60_000);

  test("an esbuild bundle of the app runs", async () => {
    const bundle = await runIn(project, ESBUILD, [
      "app.mjs",
      "--bundle",
      "--platform=node",
      "--format=esm",
      "--outfile=dist/app.bundle.mjs",
      "--log-level=error",
    ]);
    expect(bundle.stderr).toBe("");
    expect(bundle.code).toBe(0);
    const result = await runIn(project, process.execPath, ["dist/app.bundle.mjs"]);
    expect(result.stderr).toBe("");
    expect(JSON.parse(result.stdout)).toMatchObject({ turn: 1, reason: "completed" });
  }, 120_000);

  test("`npx keelson --help` runs the installed CLI", async () => {
    const result = await runIn(project, process.execPath, [join(project, "node_modules/.bin/keelson"), "--help"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("Usage: keelson");
  });

  test.each(Object.keys(COMPILER_SETTINGS))(
    "the consumer's tsc passes: %s",
    async (name) => {
      const dir = join(project, `tsc-${name.replace(/\W+/g, "-")}`);
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, "app.ts"), APP_TS);
      await writeFile(
        join(dir, "tsconfig.json"),
        JSON.stringify({ compilerOptions: COMPILER_SETTINGS[name], files: ["app.ts"] }, null, 2),
      );
      const result = await tscIn(dir, ["-p", "."]);
      expect(result.stdout + result.stderr).toBe("");
      expect(result.code).toBe(0);
    },
    60_000,
  );

  test("the consumer's tsc passes with `tsc --init` defaults", async () => {
    const dir = join(project, "tsc-init");
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, "app.ts"), APP_TS);
    const init = await runIn(dir, process.execPath, [TSC, "--init"]);
    expect(init.code).toBe(0);
    const result = await tscIn(dir, ["-p", ".", "--noEmit"]);
    expect(result.stdout + result.stderr).toBe("");
    expect(result.code).toBe(0);
  }, 60_000);
});
