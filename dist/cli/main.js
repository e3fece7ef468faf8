// The `keelson` command line: builds the commander program from one file per command and runs
// it. Every failure becomes one line on stderr and a non-zero exit; `--debug` adds the stack.
// Exit codes: 0 ok · 1 the log or the turn failed (verify issues, corrupt log, turn error) ·
// 2 bad input (ours, and commander's usage errors) · 3–6 other turn end reasons (see headless-turn.ts).
import { Command, CommanderError } from "commander";
import { registerCache } from "./cache-command.js";
import { registerChat } from "./chat-command.js";
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
export function buildProgram() {
    const program = new Command("keelson")
        .description("Keelson: an agent harness whose every model request is a pure function of the session log.\nData lives in $KEELSON_HOME (default ~/.local/share/keelson).")
        .version("0.1.0")
        .showHelpAfterError("(add --help for usage)")
        // Usage errors (unknown option or command, bad choice, missing argument) are bad input: exit 2.
        .exitOverride();
    for (const register of [
        registerChat,
        registerRun,
        registerResume,
        registerFork,
        registerSessions,
        registerShow,
        registerRequests,
        registerVerify,
        registerCache,
        registerEmulator,
        registerDemo,
    ])
        register(program);
    program.option("--debug", "print stack traces on errors");
    for (const command of program.commands)
        command.option("--debug", "print stack traces on errors");
    return program;
}
const debug = process.argv.includes("--debug");
try {
    await buildProgram().parseAsync(process.argv);
}
catch (error) {
    if (error instanceof CommanderError) {
        // Commander has printed the usage error (or the help / version) itself.
        process.exitCode = error.exitCode === 0 ? 0 : 2;
    }
    else {
        process.stderr.write(`keelson: ${describeError(error)}\n`);
        if (debug && error instanceof Error && error.stack)
            process.stderr.write(`${error.stack}\n`);
        process.exitCode = error instanceof CliError ? error.exitCode : 1;
    }
}
//# sourceMappingURL=main.js.map