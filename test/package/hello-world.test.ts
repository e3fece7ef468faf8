// A hello-world project: keelson + @anthropic-ai/sdk only (decision 0020). It stays within 40 MB
// of node_modules, talks to a model through the SDK, gets a clear missing-package error for the
// OpenAI provider it did not install, and type-checks with skipLibCheck off. Its own file so its
// install runs next to the other package tests'.
import { mkdir, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { startEmulator } from "../../src/emulator/index.js";
import { OPTIONAL_PACKAGES } from "../../src/errors/index.js";
import { COMPILER_SETTINGS } from "./compiler-settings.js";
import { installedSize, REPO, runIn, tscIn, useConsumerProject } from "./consumer.js";

describe("a hello-world project: keelson + @anthropic-ai/sdk only", () => {
  const project = useConsumerProject([`@anthropic-ai/sdk@${OPTIONAL_PACKAGES["@anthropic-ai/sdk"]}`]);

  test("installs at most 40 MB of node_modules, with none of the other optional peers", async () => {
    const { bytes, packages } = await installedSize(project());
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
        join(project(), "hello.mjs"),
        `import { AnthropicProvider, createAgent } from "keelson";
const provider = new AnthropicProvider({ apiKey: "emulator", baseURL: process.env.MODEL_URL });
const agent = createAgent({ provider, model: "emulator:emulator-anthropic", system: "Be brief." });
const outcome = await agent.send("Say hello.");
console.log(JSON.stringify({ reason: outcome.reason, text: outcome.text }));
await agent.dispose();
`,
      );
      const result = await runIn(project(), process.execPath, ["hello.mjs"], { MODEL_URL: emulator.anthropicBaseURL });
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
      join(project(), "hello-openai.mjs"),
      `import { createAgent, OpenAICompatibleProvider } from "keelson";
const provider = new OpenAICompatibleProvider({ flavor: "openai", apiKey: "sk-test", baseURL: "http://127.0.0.1:9/v1" });
const agent = createAgent({ provider, model: "openai:gpt-5" });
const outcome = await agent.send("Say hello.");
console.log(JSON.stringify(outcome.reason));
await agent.dispose();
`,
    );
    const result = await runIn(project(), process.execPath, ["hello-openai.mjs"]);
    expect(result.stderr).toBe("");
    expect(JSON.parse(result.stdout)).toMatchObject({
      kind: "error",
      code: "missing-package",
      message: `the package "openai" is not installed, and the OpenAI-compatible provider (OpenAICompatibleProvider) needs it: run \`npm install openai@${OPTIONAL_PACKAGES.openai}\``,
    });
  }, 60_000);

  test("its tsc passes with skipLibCheck off, though Keelson's declarations name SDKs it did not install", async () => {
    const dir = join(project(), "tsc-strict");
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
    const result = await tscIn(dir, ["-p", "."]);
    expect(result.stdout + result.stderr).toBe("");
    expect(result.code).toBe(0);
  }, 60_000);

  test("`keelson --help` runs; `keelson demo` names the tokenizer to install and leaves no scratch behind", async () => {
    const help = await runIn(project(), process.execPath, [join(project(), "node_modules/.bin/keelson"), "--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Usage: keelson");
    const tmp = join(project(), ".tmp");
    await mkdir(tmp);
    const demo = await runIn(project(), process.execPath, [join(project(), "node_modules/.bin/keelson"), "demo"], {
      KEELSON_HOME: join(project(), ".keelson-home"),
      TMPDIR: tmp,
    });
    expect(demo.code).not.toBe(0);
    expect(demo.stderr).toContain(`npm install js-tiktoken@${OPTIONAL_PACKAGES["js-tiktoken"]}`);
    expect(await readdir(tmp)).toEqual([]); // its scratch workspace (keelson-demo-…) is not left in $TMPDIR
  }, 60_000);
});
