// The secrets suite through the `keelson` command (bin/keelson.js as subprocesses, a private
// KEELSON_HOME, every fake key in the environment, the base URLs on the in-process emulator):
// `run --json` with a tool round, `resume --json` whose turn meets a retried 500 and then a 401,
// a bad input (an unknown session, or a bad model with --debug), then `show`, `requests` (or
// `requests --wire`), `cache`, `verify` and `sessions --json` — each CLI process costs seconds
// of CPU, so the two alternatives take turns across trials. Returns everything the commands
// printed and every file left under the home, for the scanner; a path that did not happen as
// planned (exit code, logged retry, 401 end) is a Violation, so a scan can never pass vacuously.
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import type { EmulatorServer } from "../src/emulator/index.js";
import { keelson, type Result, sessionIdOf } from "../test/cli/run-keelson.js";
import { AUTH_FAIL, FLAKY } from "./secrets-emulator.js";
import { type Exposure, type FakeKey, KEY_ENV, type KeyProvider } from "./secrets-keys.js";
import { check } from "./violation.js";

const MODEL: Readonly<Record<KeyProvider, string>> = {
  anthropic: "anthropic:claude-sonnet-4-5",
  openai: "openai:gpt-5.1",
  deepseek: "deepseek:deepseek-chat",
};

export interface CliScenario {
  /** Picks, in turn, which bad input and which `requests` form this trial runs. */
  readonly variant: number;
  readonly home: string;
  readonly emulator: EmulatorServer;
  readonly keys: readonly FakeKey[];
  readonly provider: KeyProvider;
}

export interface CliRun {
  readonly exposures: Exposure[];
  readonly commands: number;
  readonly files: number;
}

function environment(emulator: EmulatorServer, keys: readonly FakeKey[]): Record<string, string> {
  const env: Record<string, string> = {
    ANTHROPIC_BASE_URL: emulator.anthropicBaseURL,
    OPENAI_BASE_URL: emulator.openaiBaseURL,
    DEEPSEEK_BASE_URL: emulator.url,
  };
  for (const { provider, key } of keys) env[KEY_ENV[provider]] = key;
  return env;
}

/** Every file under `dir`, recursively. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

const eventsOf = (stdout: string): { type: string; data: Record<string, unknown> }[] =>
  stdout
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as { type: string; data: Record<string, unknown> });

export async function cliScenario({ variant, home, emulator, keys, provider }: CliScenario): Promise<CliRun> {
  const env = environment(emulator, keys);
  const model = MODEL[provider];
  const results: [string, Result][] = [];
  const run = async (args: string[], expectCode: number): Promise<Result> => {
    const result = await keelson(home, args, env);
    results.push([`keelson ${args.join(" ")}`, result]);
    check(
      result.code === expectCode,
      `keelson ${args.join(" ")} exited ${result.code}, expected ${expectCode}; stderr: ${result.stderr.slice(0, 500)}`,
    );
    return result;
  };

  // Bad input: an unknown session, or a bad model with --debug (a stack on stderr), in turn.
  const badInput =
    variant % 2 === 0 ? ["resume", "no-such-session", "hello"] : ["run", "--debug", "-m", `${provider}:`, "hello"];
  const [first] = await Promise.all([run(["run", "--json", "-m", model, "List the files here."], 0), run(badInput, 2)]);
  const id = sessionIdOf(first);
  check(
    eventsOf(first.stdout).some((e) => e.type === "tool/result"),
    "the first run made no tool round trip",
  );

  const resumed = await run(["resume", id, "--json", "-m", model, `${FLAKY} ${AUTH_FAIL} Read notes.txt.`], 1);
  const events = eventsOf(resumed.stdout);
  check(
    events.some((e) => e.type === "llm/retry" && e.data.code === "server-error"),
    "the resumed turn logged no llm/retry for the 500",
  );
  const end = events.at(-1);
  check(
    end?.type === "turn/end" && (end.data.reason as { code?: unknown }).code === "auth",
    `the resumed turn did not end with the 401: ${JSON.stringify(end)}`,
  );
  check(resumed.stderr.includes("authentication failed (401)"), `stderr does not report the 401: ${resumed.stderr}`);

  await Promise.all([
    run(["show", id], 0),
    // The reconstructed requests, or the adapter's exact payloads, in turn.
    run(
      variant % 2 === 0
        ? ["requests", id, "--wire", provider === "anthropic" ? "anthropic" : "openai"]
        : ["requests", id],
      0,
    ),
    run(["cache", id], 0),
    run(["verify", id], 0),
    run(["sessions", "--json"], 0),
  ]);

  const exposures: Exposure[] = results.flatMap(([command, r]) => [
    { where: `${command} (stdout)`, text: r.stdout },
    { where: `${command} (stderr)`, text: r.stderr },
  ]);
  const files = await filesUnder(home);
  for (const file of files) exposures.push({ where: file, text: await readFile(file, "utf8") });
  const log = (await readFile(join(home, "sessions", `${id}.jsonl`), "utf8")).split("\n");
  exposures.push({ where: "session header line", text: log[0] ?? "" });
  const headers = log.filter((line) => line.includes('"type":"request/header"'));
  check(headers.length >= 2, `expected a request/header per instance, found ${headers.length}`);
  exposures.push(...headers.map((text, i) => ({ where: `request/header event ${i + 1}`, text })));
  return { exposures, commands: results.length, files: files.length };
}
