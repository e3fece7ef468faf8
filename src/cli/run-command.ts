// `keelson run "prompt"`: a headless one-shot turn in a new session, persisted in the JSONL store.
// `keelson run -` reads the prompt from stdin (to end of input; one trailing newline dropped).
import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import type { Command } from "commander";
import {
  AWAIT_APPROVAL_HELP,
  cliPlugins,
  headlessPolicy,
  parseAllow,
  parseSandbox,
  SANDBOX_HELP,
} from "./agent-plugins.js";
import { CliError } from "./errors.js";
import { runHeadlessTurn, SYSTEM_PROMPT } from "./headless-turn.js";
import { openStore } from "./log-source.js";
import { chooseModel, openProvider, requireKey } from "./model-selection.js";
import { commandSummary } from "./commands.js";

export interface TurnFlags {
  readonly model?: string;
  readonly json?: boolean;
  readonly cwd?: string;
  readonly allow?: string;
  /** Mutating tools not `--allow`ed pause the turn for `keelson approve|deny` instead of being denied. */
  readonly awaitApproval?: boolean;
  /** bash's sandbox mode (`--sandbox`). */
  readonly sandbox?: string;
}

export function registerRun(program: Command): void {
  program
    .command("run")
    .description(commandSummary("run"))
    .argument("<prompt>", "the user prompt; - reads it from stdin")
    .option(
      "-m, --model <provider:model>",
      "model selector (anthropic:*, openai:*, deepseek:*, emulator:*); default $KEELSON_MODEL",
    )
    .option("--json", "print every session event as a JSON line instead of the answer text")
    .option("--cwd <dir>", "working directory of the session (the tools' workspace root)", process.cwd())
    .option(
      "--allow <tools>",
      "let tools run (default: denied): a comma list of write, edit, bash, mcp (every MCP tool; also starts the servers of .keelson/mcp.json), mcp__<server>, mcp__<server>__<tool>",
    )
    .option("--await-approval", AWAIT_APPROVAL_HELP)
    .option("--sandbox <mode>", SANDBOX_HELP)
    .action(async (prompt: string, flags: TurnFlags) => {
      process.exitCode = await runNew(prompt, flags);
    });
}

async function runNew(prompt: string, flags: TurnFlags): Promise<number> {
  const cwd = await workingDirectory(flags.cwd);
  const allow = parseAllow(flags.allow);
  const sandbox = parseSandbox(flags.sandbox);
  const choice = chooseModel(flags.model);
  requireKey(choice); // before waiting on stdin: bad input fails at once
  const text = await readPrompt(prompt);
  const handle = await openProvider(choice, process.env, (line) => process.stderr.write(`${line}\n`));
  const { createAgent } = await import("../loop/index.js");
  const store = await openStore();
  const plugins = await cliPlugins(cwd, headlessPolicy(allow, flags.awaitApproval === true), {
    askUser: flags.awaitApproval === true,
    sandbox,
  });
  const agent = createAgent({
    provider: handle.provider,
    model: choice.model,
    store,
    cwd,
    system: SYSTEM_PROMPT,
    plugins,
  });
  return runHeadlessTurn({ agent, store, handle, turn: (a) => a.send(text), json: flags.json === true });
}

/**
 * The prompt argument, or for `-` the whole of `input` (stdin) as UTF-8 with one trailing
 * newline dropped; an empty or blank one is a CliError, before any session is created.
 */
export async function readPrompt(
  prompt: string,
  input: AsyncIterable<Buffer | string> = process.stdin,
): Promise<string> {
  if (prompt !== "-") {
    if (prompt.trim() === "") throw new CliError("no prompt: the prompt argument is empty");
    return prompt;
  }
  const chunks: Buffer[] = [];
  for await (const chunk of input) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
  const text = Buffer.concat(chunks)
    .toString("utf8")
    .replace(/\r?\n$/, "");
  if (text.trim() === "") throw new CliError("no prompt: the prompt was read from stdin (-) and it is empty");
  return text;
}

/**
 * Resolves `--cwd` (or, given `stored`, the working directory a stored session recorded, which
 * `--cwd` overrides); a missing or non-directory path is a CliError naming where it came from.
 */
export async function workingDirectory(dir: string | undefined, stored?: string): Promise<string> {
  const path = resolve(dir ?? stored ?? process.cwd());
  const info = await stat(path).catch(() => undefined);
  if (info?.isDirectory()) return path;
  if (dir === undefined && stored !== undefined)
    throw new CliError(
      `the session's working directory ${JSON.stringify(path)} is not a directory any more: pass --cwd <dir> to continue it elsewhere`,
    );
  throw new CliError(`--cwd ${path} is not a directory`);
}
