// `keelson resume <id | --last> "prompt"`: a new loop instance over a stored session (loaded
// writable, crash-repaired durably) running one headless turn, like `run`.
import type { Command } from "commander";
import { reconstructRequests } from "../reconstruct/index.js";
import type { SessionEvent } from "../session/index.js";
import { StoreError } from "../store/index.js";
import { builtinToolsPlugin, parseAllow } from "./builtin-tools.js";
import { CliError } from "./errors.js";
import { runHeadlessTurn, SYSTEM_PROMPT } from "./headless-turn.js";
import { openStore } from "./log-source.js";
import { chooseModel, openProvider, type ProviderHandle, parseModel } from "./model-selection.js";
import { type TurnFlags, workingDirectory } from "./run-command.js";

interface ResumeFlags extends TurnFlags {
  readonly last?: boolean;
}

export function registerResume(program: Command): void {
  program
    .command("resume")
    .description("resume a stored session (or the newest with --last) and run one headless turn")
    .argument("[id]", "session id (omit with --last)")
    .argument("[prompt]", "the user prompt")
    .option("--last", "resume the most recently created session")
    .option("-m, --model <provider:model>", "model selector; default $KEELSON_MODEL")
    .option("--json", "print every session event as a JSON line instead of the answer text")
    .option("--cwd <dir>", "working directory (default: the session's)")
    .option("--allow <tools>", "let the mutating built-in tools run: a comma list of write, edit, bash (default: denied)")
    .action(async (first: string | undefined, second: string | undefined, flags: ResumeFlags) => {
      const [id, prompt] = flags.last === true ? [undefined, first] : [first, second];
      if (flags.last === true && second !== undefined) throw new CliError("resume --last takes only a prompt");
      if (prompt === undefined || prompt === "") throw new CliError(flags.last === true ? 'usage: keelson resume --last "prompt"' : 'usage: keelson resume <id> "prompt"');
      if (id === undefined && flags.last !== true) throw new CliError('usage: keelson resume <id | --last> "prompt"');
      process.exitCode = await resume(id, prompt, flags);
    });
}

async function resume(idOrLast: string | undefined, prompt: string, flags: ResumeFlags): Promise<number> {
  const allow = parseAllow(flags.allow);
  const store = openStore();
  let id = idOrLast;
  if (id === undefined) {
    const sessions = await store.list();
    id = sessions.at(-1)?.id;
    if (id === undefined) throw new CliError(`no sessions to resume in ${store.root}`);
  }
  const file = store.fileOf(id);
  let handle: ProviderHandle | undefined;
  try {
    // Validate read-only first, so an unknown or broken log is reported without locking,
    // repairing, or starting a provider.
    const { session } = await store.load(id, { readOnly: true });
    // No --model and no $KEELSON_MODEL: continue with the model the session last used.
    const logged = flags.model === undefined && !process.env.KEELSON_MODEL ? lastModel(session.events) : undefined;
    const choice = chooseModel(flags.model ?? logged);
    const cwd = await workingDirectory(flags.cwd ?? session.header.cwd);
    handle = await openProvider(choice, process.env, (line) => process.stderr.write(`${line}\n`));
    const { resumeAgent } = await import("../loop/index.js");
    const plugins = [await builtinToolsPlugin(cwd, allow)];
    const agent = await resumeAgent(store, id, { provider: handle.provider, model: choice.model, cwd, system: SYSTEM_PROMPT, plugins });
    return await runHeadlessTurn({ agent, store, handle, prompt, json: flags.json === true });
  } catch (error) {
    await store.close().catch(() => undefined);
    await handle?.close().catch(() => undefined);
    if (error instanceof StoreError && error.code === "not-found") throw new CliError(`unknown session ${id} (${file} does not exist)`);
    throw error;
  }
}

/** The model of the session's last reconstructed request, if it names a known provider. */
function lastModel(events: readonly SessionEvent[]): string | undefined {
  const model = [...reconstructRequests(events)].at(-1)?.request.model;
  if (model === undefined) return undefined;
  try {
    return parseModel(model).model;
  } catch {
    return undefined;
  }
}
