// `keelson chat`: registers the interactive command and checks everything the user could have
// got wrong (model, key, --cwd, --allow, the session to resume) before the chat itself
// (chat-session.ts, which pulls in the provider SDKs) is loaded — so bad input fails fast, one
// line on stderr, with nothing written.
import type { Command } from "commander";
import { parseAllow, parseSandbox, SANDBOX_HELP } from "./agent-plugins.js";
import { CliError } from "./errors.js";
import { openStore } from "./log-source.js";
import { chooseModel, requireKey } from "./model-selection.js";
import { resumeTarget } from "./resume-command.js";
import { workingDirectory } from "./run-command.js";
import { commandSummary } from "./commands.js";

interface ChatFlags {
  readonly model?: string;
  readonly cwd?: string;
  readonly allow?: string;
  readonly resume?: string;
  readonly last?: boolean;
  readonly sandbox?: string;
}

export function registerChat(program: Command): void {
  program
    .command("chat")
    .description(commandSummary("chat"))
    .option(
      "-m, --model <provider:model>",
      "model selector (anthropic:*, openai:*, deepseek:*, emulator:*); default $KEELSON_MODEL",
    )
    .option(
      "--cwd <dir>",
      "working directory of the session (the tools' workspace root; default: the current directory, or the resumed session's)",
    )
    .option(
      "--allow <tools>",
      "let these tools run without asking: a comma list of write, edit, bash, mcp (every MCP tool; also starts the servers of .keelson/mcp.json without asking), mcp__<server>, mcp__<server>__<tool>",
    )
    .option("--resume <id>", "continue a stored session")
    .option("--last", "continue the most recently used session")
    .option("--sandbox <mode>", SANDBOX_HELP)
    .action(async (flags: ChatFlags) => {
      const allow = parseAllow(flags.allow);
      const sandbox = parseSandbox(flags.sandbox);
      if (flags.resume !== undefined && flags.last === true)
        throw new CliError("chat takes --resume <id> or --last, not both");
      const store = await openStore();
      try {
        const resuming = flags.resume !== undefined || flags.last === true;
        const target = resuming
          ? await resumeTarget(store, flags.resume, flags)
          : { choice: chooseModel(flags.model), cwd: await workingDirectory(flags.cwd) };
        requireKey(target.choice);
        const { runChat } = await import("./chat-session.js");
        process.exitCode = await runChat(store, target, allow, sandbox);
      } finally {
        await store.close();
      }
    });
}
