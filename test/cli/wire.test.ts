// `requests --wire` reproduces, byte for byte, the bodies a provider received: sessions are run
// by the CLI against an emulator this test starts in-process (keeping raw request bodies), then
// every line `requests --wire` prints is compared with the raw bytes the emulator received —
// `"stream":true` and key order included. Also: `keelson emulator` serves until SIGINT and stops
// cleanly.
import { rm } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EmulatorServer, startEmulator } from "../../src/emulator/index.js";
import { BIN, cleanEnv, keelson, sessionIdOf, spawn, tempHome } from "./run-keelson.js";

let emulator: EmulatorServer;
let home: string;

beforeAll(async () => {
  emulator = await startEmulator({ model: "rule-based", keepRawBodies: true });
  home = await tempHome();
});
afterAll(async () => {
  await emulator.close();
  await rm(home, { recursive: true, force: true });
});

/** The raw bodies the emulator received on `path` for session `id`, in order. */
function recordedBodies(path: string, sessionKey: (body: Record<string, unknown>) => unknown, id: string): string[] {
  return emulator.requests
    .filter((r) => r.path === path && sessionKey(r.body as Record<string, unknown>) === id)
    .map((r) => r.rawBody!);
}

/** `requests --wire` output: one body per line. */
const lines = (stdout: string): string[] => stdout.split("\n").filter((line) => line !== "");

describe("keelson requests --wire", () => {
  it("prints byte for byte the bodies the emulator received for the same session (anthropic and openai)", async () => {
    const anthropicEnv = { ANTHROPIC_BASE_URL: emulator.anthropicBaseURL, ANTHROPIC_API_KEY: "test-key" };
    const openaiEnv = { OPENAI_BASE_URL: emulator.openaiBaseURL, OPENAI_API_KEY: "test-key" };
    const [a1, o1] = await Promise.all([
      keelson(home, ["run", "--model", "anthropic:claude-sonnet-4-5", "first question"], anthropicEnv),
      keelson(home, ["run", "--model", "openai:gpt-5.1", "first question"], openaiEnv),
    ]);
    expect(a1.code).toBe(0);
    expect(o1.code).toBe(0);
    expect(a1.stderr).not.toMatch(/emulator/); // an explicit provider: no fallback notice
    const anthropicId = sessionIdOf(a1);
    const openaiId = sessionIdOf(o1);
    const a2 = await keelson(
      home,
      ["resume", anthropicId, "--model", "anthropic:claude-sonnet-4-5", "second question"],
      anthropicEnv,
    );
    expect(a2.code).toBe(0);

    const [aw, ow] = await Promise.all([
      keelson(home, ["requests", anthropicId, "--wire", "anthropic"]),
      keelson(home, ["requests", openaiId, "--wire", "openai"]),
    ]);
    const anthropicWire = lines(aw.stdout);
    const anthropicRecorded = recordedBodies(
      "/v1/messages",
      (b) => (b.metadata as { user_id?: string } | undefined)?.user_id,
      anthropicId,
    );
    expect(anthropicRecorded).toHaveLength(2);
    expect(anthropicWire).toEqual(anthropicRecorded);
    expect(anthropicWire.every((body) => body.endsWith(',"stream":true}'))).toBe(true); // as the adapter sends it

    const openaiWire = lines(ow.stdout);
    const openaiRecorded = recordedBodies("/v1/chat/completions", (b) => b.prompt_cache_key, openaiId);
    expect(openaiRecorded).toHaveLength(1);
    expect(openaiWire).toEqual(openaiRecorded);
  }, 60_000);

  it("matches byte for byte for deepseek too (max_tokens field, no prompt_cache_key), over a tool-calling turn", async () => {
    const env = { DEEPSEEK_BASE_URL: emulator.openaiBaseURL, DEEPSEEK_API_KEY: "test-key" };
    const run = await keelson(home, ["run", "--model", "deepseek:deepseek-chat", "list the files here"], env);
    expect(run.code).toBe(0);
    const id = sessionIdOf(run);
    const wire = await keelson(home, ["requests", id, "--wire", "deepseek"]);
    expect(wire.code).toBe(0);
    const payloads = lines(wire.stdout);
    // DeepSeek requests carry no session key; this test's only deepseek session is this one.
    const recorded = recordedBodies("/v1/chat/completions", (b) => (b.model === "deepseek-chat" ? id : undefined), id);
    expect(recorded).toHaveLength(2); // the ls call, then the answer
    expect(payloads).toEqual(recorded);
    expect(payloads.every((p) => !p.includes("prompt_cache_key"))).toBe(true);
    const step = await keelson(home, ["requests", id, "--wire", "deepseek", "--step", "2"]);
    expect(step.stdout).toBe(`${recorded[1]}\n`);
  }, 60_000);

  it("matches byte for byte for gemini (the @google/genai SDK's own serialization), over a tool-calling turn and a resume", async () => {
    const env = { GOOGLE_GEMINI_BASE_URL: emulator.geminiBaseURL, GEMINI_API_KEY: "test-key" };
    const run = await keelson(home, ["run", "--model", "gemini:gemini-2.5-flash", "list the files here"], env);
    expect(run.code).toBe(0);
    const id = sessionIdOf(run);
    const again = await keelson(home, ["resume", id, "--model", "gemini:gemini-2.5-flash", "and once more"], env);
    expect(again.code).toBe(0);
    const wire = await keelson(home, ["requests", id, "--wire", "gemini"]);
    expect(wire.code).toBe(0);
    // Gemini bodies carry no session key (the model is in the URL); this test's only Gemini session is this one.
    const recorded = emulator.requests
      .filter((r) => r.path === "/v1beta/models/gemini-2.5-flash:streamGenerateContent")
      .map((r) => r.rawBody!);
    expect(recorded).toHaveLength(3); // the ls call, its answer, the resumed turn
    expect(lines(wire.stdout)).toEqual(recorded);
    expect(recorded[1]).toContain('"functionResponse"');
  }, 60_000);
});

describe("keelson requests --wire, for the Responses API and a local server", () => {
  it("responses: byte for byte over a tool-calling turn, encrypted reasoning items included", async () => {
    const env = { OPENAI_BASE_URL: emulator.openaiBaseURL, OPENAI_API_KEY: "test-key" };
    const run = await keelson(home, ["run", "--model", "openai-responses:gpt-5.4", "list the files here"], env);
    expect(run.code).toBe(0);
    const id = sessionIdOf(run);
    const wire = await keelson(home, ["requests", id, "--wire", "responses"]);
    expect(wire.code).toBe(0);
    const recorded = recordedBodies("/v1/responses", (b) => b.prompt_cache_key, id);
    expect(recorded).toHaveLength(2); // the ls call, then the answer
    expect(lines(wire.stdout)).toEqual(recorded);
    expect(recorded.every((body) => body.includes('"store":false') && body.endsWith(',"stream":true}'))).toBe(true);
  }, 60_000);

  it("llamacpp: the Chat Completions body with cache_prompt, byte for byte", async () => {
    const env = { LLAMACPP_BASE_URL: emulator.openaiBaseURL };
    const run = await keelson(home, ["run", "--model", "llamacpp:qwen3-8b", "first question"], env);
    expect(run.code).toBe(0);
    const id = sessionIdOf(run);
    const wire = await keelson(home, ["requests", id, "--wire", "llamacpp"]);
    // llama.cpp requests carry no session key; this test's only qwen3-8b session is this one.
    const recorded = recordedBodies("/v1/chat/completions", (b) => (b.model === "qwen3-8b" ? id : undefined), id);
    expect(recorded).toHaveLength(1);
    expect(lines(wire.stdout)).toEqual(recorded);
    expect(recorded[0]).toContain('"cache_prompt":true');
  }, 60_000);
});

describe("keelson emulator", () => {
  it("prints its base URLs, serves until SIGINT, then closes cleanly", async () => {
    const child = spawn(process.execPath, [BIN, "emulator", "--style", "openai"], { env: cleanEnv(home) });
    let stdout = "";
    const listening = new Promise<void>((resolve) => {
      child.stdout.on("data", (chunk: Buffer) => {
        stdout += chunk.toString();
        if (stdout.includes("Ctrl-C")) resolve();
      });
    });
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    await listening;
    const base = /anthropic base URL: (\S+)/.exec(stdout)?.[1];
    expect(base).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(stdout).toMatch(/openai base URL: +http:\/\/127\.0\.0\.1:\d+\/v1/);
    expect(stdout).toContain("ANTHROPIC_BASE_URL=");
    const reply = await fetch(`${base}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": "k", "anthropic-version": "2023-06-01" },
      body: JSON.stringify({ model: "claude-sonnet-4-5", max_tokens: 64, messages: [{ role: "user", content: "hi" }] }),
    });
    expect(reply.status).toBe(200);
    child.kill("SIGINT");
    expect(await exited).toBe(0);
    expect(stdout).toMatch(/emulator stopped \(1 requests served\)/);
  }, 30_000);
});
