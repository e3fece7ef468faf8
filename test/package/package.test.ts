// The package as it ships: `npm pack`, installed from the tarball into a fresh project. Plain
// `node app.mjs` runs an agent on the emulator; CommonJS `require("keelson")` works on Node
// ≥ 20.19; the consumer's own `tsc` passes under common compiler settings with zero errors;
// an esbuild bundle of the app runs; the tarball holds no tests, benches or configs, ships the docs
// its README links to and a manifest without scripts or dev dependencies; zod is the
// application's (a zod 3 project gets a clear error for a zod 3 schema, and works with zod/v4).
// Provider SDKs, pg, the MCP SDK and the tokenizer are optional peers (decision 0020): the full
// consumer installs them all; a hello-world project installs keelson + @anthropic-ai/sdk only,
// stays within 40 MB of node_modules, talks to a model through the SDK, and gets a clear
// missing-package error for the OpenAI provider it did not install.
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startEmulator } from "../../src/emulator/index.js";
import { OPTIONAL_PACKAGES } from "../../src/errors/index.js";
import { consumerProject, ESBUILD, installedSize, pack, type Packed, REPO, runIn, TSC } from "./consumer.js";

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

// Plain `strict` is not its own row: exactOptionalPropertyTypes and noUncheckedIndexedAccess only
// add errors, so the row with them covers it (each row is a whole tsc run over the declarations).
const COMPILER_SETTINGS: Readonly<Record<string, object>> = {
  "strict + exactOptionalPropertyTypes, nodenext, skipLibCheck off": {
    strict: true,
    exactOptionalPropertyTypes: true,
    noUncheckedIndexedAccess: true,
    module: "nodenext",
    moduleResolution: "nodenext",
    target: "es2022",
    types: ["node"],
    noEmit: true,
    skipLibCheck: false,
  },
  "strict, bundler resolution, skipLibCheck off": {
    strict: true,
    module: "esnext",
    moduleResolution: "bundler",
    target: "es2022",
    types: ["node"],
    noEmit: true,
    skipLibCheck: false,
  },
  "not strict, nodenext": { module: "nodenext", target: "es2022", types: ["node"], noEmit: true },
};

let work: string;
let packed: Packed;
let project: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "keelson-pack-"));
  packed = await pack(work);
  const { devDependencies } = JSON.parse(await readFile(join(REPO, "package.json"), "utf8")) as {
    devDependencies: Record<string, string>;
  };
  project = await consumerProject(packed.tarball, [
    `zod@${devDependencies.zod}`,
    `@types/node@${devDependencies["@types/node"]}`,
    // every optional peer: the demo and app.mjs use the Anthropic SDK and the emulator's tokenizer,
    // and the consumer's tsc with skipLibCheck off reads the declarations that name the SDKs' types
    ...Object.entries(OPTIONAL_PACKAGES).map(([name, version]) => `${name}@${version}`),
  ]);
  await writeFile(join(project, "app.mjs"), APP_MJS);
  await writeFile(join(project, "app.ts"), APP_TS);
}, 300_000);

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
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
    // A module hook that prints every URL the import resolves.
    await writeFile(
      join(project, "trace-hooks.mjs"),
      `export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  process.stdout.write(result.url + "\\n");
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
    const loaded = result.stdout.split("\n").filter((url) => url.includes("/node_modules/"));
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
      const result = await runIn(dir, process.execPath, [TSC, "-p", "."]);
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
    const result = await runIn(dir, process.execPath, [TSC, "-p", ".", "--noEmit"]);
    expect(result.stdout + result.stderr).toBe("");
    expect(result.code).toBe(0);
  }, 60_000);
});

describe("a zod 3 project (zod 3.25)", () => {
  let zod3Project: string;
  beforeAll(async () => {
    zod3Project = await consumerProject(packed.tarball, ["zod@3.25.76"]);
  }, 300_000);
  afterAll(async () => {
    if (zod3Project !== undefined) await rm(zod3Project, { recursive: true, force: true });
  });

  const agentWith = (zodImport: string): string => `import { createAgent, defineTool, ScriptedProvider } from "keelson";
import { z } from "${zodImport}";
const tool = defineTool({
  name: "read",
  description: "reads",
  input: z.object({ path: z.string().describe("the file to read"), lines: z.number().int().default(10) }),
  execute: ({ path, lines }) => path + ":" + lines,
});
try {
  const provider = new ScriptedProvider([{ toolCalls: [{ name: "read", arguments: { path: "a.txt" } }] }, { text: "done" }]);
  const agent = createAgent({ provider, model: "scripted:m", tools: [tool] });
  const outcome = await agent.send("go");
  const result = agent.session.events.find((e) => e.type === "tool/result");
  console.log(JSON.stringify({ reason: outcome.reason.kind, result: result.data.content, schema: provider.requests[0].tools[0].inputSchema }));
  await agent.dispose();
} catch (error) {
  console.log(JSON.stringify({ error: error.name, code: error.code, message: error.message }));
}
`;

  test("a zod/v4 schema works: its JSON Schema keeps the descriptions, defaults apply", async () => {
    await writeFile(join(zod3Project, "v4.mjs"), agentWith("zod/v4"));
    const result = await runIn(zod3Project, process.execPath, ["v4.mjs"]);
    expect(result.stderr).toBe("");
    const out = JSON.parse(result.stdout) as { reason: string; result: unknown; schema: unknown };
    expect(out.reason).toBe("completed");
    expect(out.result).toEqual([{ type: "text", text: "a.txt:10" }]);
    expect(out.schema).toMatchObject({
      type: "object",
      properties: { path: { type: "string", description: "the file to read" } },
      required: ["path"],
    });
  }, 60_000);

  test("a zod 3 schema is refused with a ToolError that says which zod is needed", async () => {
    await writeFile(join(zod3Project, "v3.mjs"), agentWith("zod"));
    const result = await runIn(zod3Project, process.execPath, ["v3.mjs"]);
    expect(result.stderr).toBe("");
    const out = JSON.parse(result.stdout) as { error: string; code: string; message: string };
    expect(out).toMatchObject({ error: "ToolError", code: "invalid-tool" });
    expect(out.message).toContain("zod 3 schema");
    expect(out.message).toContain('import { z } from "zod/v4"');
  }, 60_000);
});

describe("a hello-world project: keelson + @anthropic-ai/sdk only", () => {
  let hello: string;
  beforeAll(async () => {
    hello = await consumerProject(packed.tarball, [`@anthropic-ai/sdk@${OPTIONAL_PACKAGES["@anthropic-ai/sdk"]}`]);
  }, 300_000);
  afterAll(async () => {
    if (hello !== undefined) await rm(hello, { recursive: true, force: true });
  });

  test("installs at most 40 MB of node_modules, with none of the other optional peers", async () => {
    const { bytes, packages } = await installedSize(hello);
    // the numbers decision 0020 quotes; the test run shows them
    console.log(
      `hello world (keelson + @anthropic-ai/sdk): ${packages.length} packages, ${(bytes / 1e6).toFixed(1)} MB`,
    );
    expect(bytes).toBeLessThanOrEqual(40e6);
    expect(packages).toContain("keelson");
    expect(packages).toContain("@anthropic-ai/sdk");
    for (const name of Object.keys(OPTIONAL_PACKAGES).filter((n) => n !== "@anthropic-ai/sdk"))
      expect(packages, name).not.toContain(name);
    expect(packages.filter((p) => /^(@opentelemetry\/sdk|zod$|express$|hono$)/.test(p))).toEqual([]);
  });

  test("its app talks to a model through the Anthropic SDK", async () => {
    // The model: the emulator, run by this test (the app has no tokenizer, so it cannot run one).
    const emulator = await startEmulator();
    try {
      await writeFile(
        join(hello, "hello.mjs"),
        `import { AnthropicProvider, createAgent } from "keelson";
const provider = new AnthropicProvider({ apiKey: "emulator", baseURL: process.env.MODEL_URL });
const agent = createAgent({ provider, model: "emulator:emulator-anthropic", system: "Be brief." });
const outcome = await agent.send("Say hello.");
console.log(JSON.stringify({ reason: outcome.reason, text: outcome.text }));
await agent.dispose();
`,
      );
      const result = await runIn(hello, process.execPath, ["hello.mjs"], { MODEL_URL: emulator.anthropicBaseURL });
      expect(result.stderr).toBe("");
      const out = JSON.parse(result.stdout) as { reason: { kind: string }; text: string };
      expect(out.reason.kind).toBe("completed");
      expect(out.text.length).toBeGreaterThan(0);
      expect(emulator.requests.length).toBe(1);
    } finally {
      await emulator.close();
    }
  }, 60_000);

  test("using the OpenAI provider without `openai` is a missing-package error naming the install", async () => {
    await writeFile(
      join(hello, "hello-openai.mjs"),
      `import { createAgent, OpenAICompatibleProvider } from "keelson";
const provider = new OpenAICompatibleProvider({ flavor: "openai", apiKey: "sk-test", baseURL: "http://127.0.0.1:9/v1" });
const agent = createAgent({ provider, model: "openai:gpt-5" });
const outcome = await agent.send("Say hello.");
console.log(JSON.stringify(outcome.reason));
await agent.dispose();
`,
    );
    const result = await runIn(hello, process.execPath, ["hello-openai.mjs"]);
    expect(result.stderr).toBe("");
    expect(JSON.parse(result.stdout)).toMatchObject({
      kind: "error",
      code: "missing-package",
      message: `the package "openai" is not installed, and the OpenAI-compatible provider (OpenAICompatibleProvider) needs it: run \`npm install openai@${OPTIONAL_PACKAGES.openai}\``,
    });
  }, 60_000);

  test("its tsc passes with skipLibCheck off, though Keelson's declarations name SDKs it did not install", async () => {
    const dir = join(hello, "tsc-strict");
    await mkdir(dir, { recursive: true });
    await writeFile(
      join(dir, "app.ts"),
      `import { AnthropicProvider, createAgent, defineTool, jsonSchema, mcpTools, type OpenAICompatibleOptions } from "keelson";
const echo = defineTool({
  name: "echo",
  description: "echoes",
  input: jsonSchema<{ text: string }>({ type: "object", properties: { text: { type: "string" } }, required: ["text"] }),
  execute: ({ text }) => text,
});
const options: OpenAICompatibleOptions = { flavor: "openai", apiKey: "k" };
export const agent = createAgent({
  provider: new AnthropicProvider({ apiKey: "k" }),
  model: "anthropic:claude-sonnet-4-5",
  tools: [echo],
  plugins: [mcpTools({ servers: {} })],
});
export const flavor: string = options.flavor;
`,
    );
    const compilerOptions = {
      ...COMPILER_SETTINGS["strict + exactOptionalPropertyTypes, nodenext, skipLibCheck off"],
      typeRoots: [join(REPO, "node_modules/@types")], // @types/node without installing it here
    };
    await writeFile(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions, files: ["app.ts"] }, null, 2));
    const result = await runIn(dir, process.execPath, [TSC, "-p", "."]);
    expect(result.stdout + result.stderr).toBe("");
    expect(result.code).toBe(0);
  }, 60_000);

  test("`keelson --help` runs; `keelson demo` names the tokenizer to install", async () => {
    const help = await runIn(hello, process.execPath, [join(hello, "node_modules/.bin/keelson"), "--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Usage: keelson");
    const demo = await runIn(hello, process.execPath, [join(hello, "node_modules/.bin/keelson"), "demo"], {
      KEELSON_HOME: join(hello, ".keelson-home"),
    });
    expect(demo.code).not.toBe(0);
    expect(demo.stderr).toContain(`npm install js-tiktoken@${OPTIONAL_PACKAGES["js-tiktoken"]}`);
  }, 60_000);
});
