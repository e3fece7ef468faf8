// `keelson run "prompt"`: a headless one-shot turn in a new session, persisted in the JSONL store.
import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import { cliPlugins, denyUnlessAllowed, parseAllow } from "./agent-plugins.js";
import { CliError } from "./errors.js";
import { runHeadlessTurn, SYSTEM_PROMPT } from "./headless-turn.js";
import { openStore } from "./log-source.js";
import { chooseModel, openProvider } from "./model-selection.js";
import { summaryOf } from "./commands.js";
export function registerRun(program) {
    program
        .command("run")
        .description(summaryOf("run"))
        .argument("<prompt>", "the user prompt")
        .option("-m, --model <provider:model>", "model selector (anthropic:*, openai:*, deepseek:*, emulator:*); default $KEELSON_MODEL")
        .option("--json", "print every session event as a JSON line instead of the answer text")
        .option("--cwd <dir>", "working directory of the session (the tools' workspace root)", process.cwd())
        .option("--allow <tools>", "let the mutating built-in tools run: a comma list of write, edit, bash (default: denied)")
        .action(async (prompt, flags) => {
        process.exitCode = await runNew(prompt, flags);
    });
}
async function runNew(prompt, flags) {
    const cwd = await workingDirectory(flags.cwd);
    const allow = parseAllow(flags.allow);
    const choice = chooseModel(flags.model);
    const handle = await openProvider(choice, process.env, (line) => process.stderr.write(`${line}\n`));
    const { createAgent } = await import("../loop/index.js");
    const store = openStore();
    const plugins = await cliPlugins(cwd, denyUnlessAllowed(allow));
    const agent = createAgent({
        provider: handle.provider,
        model: choice.model,
        store,
        cwd,
        system: SYSTEM_PROMPT,
        plugins,
    });
    return runHeadlessTurn({ agent, store, handle, prompt, json: flags.json === true });
}
/** Resolves `--cwd`; a missing or non-directory path is a CliError. */
export async function workingDirectory(dir) {
    const path = resolve(dir ?? process.cwd());
    const info = await stat(path).catch(() => undefined);
    if (info === undefined || !info.isDirectory())
        throw new CliError(`--cwd ${path} is not a directory`);
    return path;
}
//# sourceMappingURL=run-command.js.map