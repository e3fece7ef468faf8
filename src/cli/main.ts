// The `keelson` command line: builds the commander program from one file per command and runs
// it. Every failure becomes one line on stderr and a non-zero exit; `--debug` adds the stack.
// Messages quote untrusted text (ids, paths, log contents): escaped for the terminal.
// Exit codes: 0 ok · 1 the log or the turn failed (verify issues, corrupt log, turn error) ·
// 2 bad input (ours, and commander's usage errors) · 3–6 other turn end reasons (see headless-turn.ts).
import { Command, CommanderError } from "commander";
import { COMMANDS } from "./commands.js";
import { CliError, describeError } from "./errors.js";
import { chooseSdkBuilds } from "./sdk-builds.js";
import { chooseStore } from "./store-choice.js";
import { terminalLine, terminalText } from "./terminal-text.js";
import { KEELSON_VERSION as version } from "./version.js";

/**
 * The commander program for `argv`: the command being run (or asked about with `help <name>`)
 * is loaded and registered in full; every other command is a stub with its summary, enough for
 * `--help` and for commander's "did you mean" suggestions.
 */
export async function buildProgram(argv: readonly string[]): Promise<Command> {
  const program = new Command("keelson")
    .description(
      "Keelson: an agent harness whose every model request is a pure function of the session log.\nData lives in $KEELSON_HOME (default ~/.local/share/keelson).",
    )
    .version(version)
    .showHelpAfterError("(add --help for usage)")
    // Commander's own usage errors quote argv (an unknown option that is a prompt or an answer
    // starting with "-", a bad choice): escaped like every other message. Inherited by each command.
    .configureOutput({ writeErr: (text) => process.stderr.write(terminalText(text)) })
    // Usage errors (unknown option or command, bad choice, missing argument) are bad input: exit 2.
    .exitOverride();
  // The command is the first word that is neither an option nor the value of `--store`.
  const args = argv.slice(2).filter((a, i, all) => !a.startsWith("-") && all[i - 1] !== "--store");
  const wanted = args[0] === "help" ? args[1] : args[0];
  for (const entry of COMMANDS) {
    if (entry.name === wanted) (await entry.load())(program);
    else program.command(entry.name).description(entry.summary);
  }
  program.option("--debug", "print stack traces on errors");
  for (const command of program.commands) command.option("--debug", "print stack traces on errors");
  // Every command takes `--store` (before or after its name); one it defines itself keeps its own.
  const STORE = [
    "--store <url|dir>",
    "session store: a postgres:// URL or a JSONL sessions directory (default $KEELSON_STORE, else $KEELSON_HOME/sessions)",
  ] as const;
  program.option(...STORE);
  for (const command of program.commands)
    if (!command.options.some((o) => o.long === "--store")) command.option(...STORE);
  program.hook("preAction", (root, action) => {
    chooseStore((action.opts() as { store?: string }).store ?? (root.opts() as { store?: string }).store);
  });
  return program;
}

// A reader that stops early (`keelson sessions | head`) does not want the rest: end quietly, as
// the shell's own tools do, instead of an unhandled EPIPE's stack trace.
for (const stream of [process.stdout, process.stderr])
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error;
    process.exit(process.exitCode ?? 0);
  });

chooseSdkBuilds(process.argv); // run, resume, chat, demo: the SDKs' CommonJS builds (sdk-builds.ts)

const debug = process.argv.includes("--debug");
try {
  await (await buildProgram(process.argv)).parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    // Commander has printed the usage error (or the help / version) itself.
    process.exitCode = error.exitCode === 0 ? 0 : 2;
  } else {
    process.stderr.write(`keelson: ${terminalLine(describeError(error))}\n`);
    if (debug && error instanceof Error && error.stack) process.stderr.write(`${terminalText(error.stack)}\n`);
    process.exitCode = error instanceof CliError ? error.exitCode : 1;
  }
}
