// The `keelson` command line: builds the commander program from one file per command and runs
// it. Every failure becomes one line on stderr and a non-zero exit; `--debug` adds the stack.
// Exit codes: 0 ok · 1 the log or the turn failed (verify issues, corrupt log, turn error) ·
// 2 bad input · 3–6 other turn end reasons (see headless-turn.ts).
import { Command } from "commander";
import { registerCache } from "./cache-command.js";
import { registerDemo } from "./demo-command.js";
import { registerEmulator } from "./emulator-command.js";
import { CliError, describeError } from "./errors.js";
import { registerFork } from "./fork-command.js";
import { registerRequests } from "./requests-command.js";
import { registerResume } from "./resume-command.js";
import { registerRun } from "./run-command.js";
import { registerSessions } from "./sessions-command.js";
import { registerShow } from "./show-command.js";
import { registerVerify } from "./verify-command.js";

export function buildProgram(): Command {
  const program = new Command("keelson")
    .description("Keelson: an agent harness whose every model request is a pure function of the session log.\nData lives in $KEELSON_HOME (default ~/.local/share/keelson).")
    .version("0.1.0")
    .showHelpAfterError("(add --help for usage)");
  for (const register of [registerRun, registerResume, registerFork, registerSessions, registerShow, registerRequests, registerVerify, registerCache, registerEmulator, registerDemo]) register(program);
  program.option("--debug", "print stack traces on errors");
  for (const command of program.commands) command.option("--debug", "print stack traces on errors");
  return program;
}

const debug = process.argv.includes("--debug");
try {
  await buildProgram().parseAsync(process.argv);
} catch (error) {
  process.stderr.write(`keelson: ${describeError(error)}\n`);
  if (debug && error instanceof Error && error.stack) process.stderr.write(`${error.stack}\n`);
  process.exitCode = error instanceof CliError ? error.exitCode : 1;
}
