// `keelson resume <id | --last> "prompt"`: a new loop instance over a stored session (loaded
// writable, crash-repaired durably) running one headless turn, like `run`. `resumeTarget` (also
// used by `chat --resume`) validates the session read-only first and picks the model and cwd.
import type { Command } from "commander";
import { reconstructRequests } from "../reconstruct/index.js";
import type { SessionEvent } from "../session/index.js";
import {
  AWAIT_APPROVAL_HELP,
  cliPlugins,
  headlessPolicy,
  parseAllow,
  parseSandbox,
  SANDBOX_HELP,
} from "./agent-plugins.js";
import { JsonlSessionStore, moreRecent, type SessionSummary } from "../store/index.js";
import { CliError } from "./errors.js";
import { runHeadlessTurn, SYSTEM_PROMPT } from "./headless-turn.js";
import { type CliStore, cliErrorOf, openStore } from "./log-source.js";
import {
  chooseModel,
  type ModelChoice,
  openProvider,
  type ProviderHandle,
  parseModel,
  requireKey,
} from "./model-selection.js";
import { readPrompt, type TurnFlags, workingDirectory } from "./run-command.js";
import { commandSummary } from "./commands.js";

interface ResumeFlags extends TurnFlags {
  readonly last?: boolean;
}

export function registerResume(program: Command): void {
  program
    .command("resume")
    .description(commandSummary("resume"))
    .argument("[id]", "session id (omit with --last)")
    .argument("[prompt]", "the user prompt; - reads it from stdin")
    .option("--last", "resume the most recently used session")
    .option("--await-approval", AWAIT_APPROVAL_HELP)
    .option(
      "-m, --model <provider:model>",
      "model selector; default $KEELSON_MODEL, else the model the session last used",
    )
    .option("--json", "print every session event as a JSON line instead of the answer text")
    .option("--cwd <dir>", "working directory (default: the session's)")
    .option(
      "--allow <tools>",
      "let tools run (default: denied): a comma list of write, edit, bash, mcp (every MCP tool; also starts the servers of .keelson/mcp.json), mcp__<server>, mcp__<server>__<tool>",
    )
    .option("--sandbox <mode>", SANDBOX_HELP)
    .action(async (first: string | undefined, second: string | undefined, flags: ResumeFlags) => {
      const [id, prompt] = flags.last === true ? [undefined, first] : [first, second];
      if (flags.last === true && second !== undefined) throw new CliError("resume --last takes only a prompt");
      if (prompt === undefined || prompt === "")
        throw new CliError(
          flags.last === true ? 'usage: keelson resume --last "prompt"' : 'usage: keelson resume <id> "prompt"',
        );
      if (id === undefined && flags.last !== true) throw new CliError('usage: keelson resume <id | --last> "prompt"');
      process.exitCode = await resume(id, prompt, flags);
    });
}

export interface ResumeTarget {
  readonly id: string;
  readonly choice: ModelChoice;
  readonly cwd: string;
}

/**
 * Resolves `id` (or, when undefined, the most recently written session) and validates its log
 * read-only — an unknown or broken log is reported without locking, repairing or starting a
 * provider, as the inspection commands report it (an unknown or invalid id exits 2; a corrupt,
 * foreign or newer log exits 1). Without `--model` / `$KEELSON_MODEL` the model is the one the
 * session last used.
 */
export async function resumeTarget(
  store: CliStore,
  idOrLast: string | undefined,
  flags: { readonly model?: string; readonly cwd?: string },
): Promise<ResumeTarget> {
  let id = idOrLast;
  if (id === undefined) {
    // The JSONL store finds it without a summary per log (its index); a database lists them in one query.
    id =
      store instanceof JsonlSessionStore
        ? (await store.latest())?.id
        : (await store.list()).reduce<SessionSummary | undefined>(
            (best, s) => (best === undefined || moreRecent(s, best) ? s : best),
            undefined,
          )?.id;
    if (id === undefined) throw new CliError(`no sessions to resume in ${store.label}`);
  }
  try {
    const { session } = await store.load(id, { readOnly: true });
    const logged = flags.model === undefined && !process.env.KEELSON_MODEL ? lastModel(session.events) : undefined;
    const choice = chooseModel(flags.model ?? logged);
    const cwd = await workingDirectory(flags.cwd, session.header.cwd);
    return { id, choice, cwd };
  } catch (error) {
    throw cliErrorOf(error);
  }
}

async function resume(idOrLast: string | undefined, prompt: string, flags: ResumeFlags): Promise<number> {
  const allow = parseAllow(flags.allow);
  const sandbox = parseSandbox(flags.sandbox);
  const store = await openStore();
  let handle: ProviderHandle | undefined;
  try {
    const { id, choice, cwd } = await resumeTarget(store, idOrLast, flags);
    requireKey(choice); // before waiting on stdin: bad input fails at once
    const text = await readPrompt(prompt);
    handle = await openProvider(choice, process.env, (line) => process.stderr.write(`${line}\n`));
    const { resumeAgent } = await import("../loop/index.js");
    const plugins = await cliPlugins(cwd, headlessPolicy(allow, flags.awaitApproval === true), {
      askUser: flags.awaitApproval === true,
      sandbox,
    });
    const agent = await resumeAgent(store, id, {
      provider: handle.provider,
      model: choice.model,
      cwd,
      system: SYSTEM_PROMPT,
      plugins,
    });
    return await runHeadlessTurn({ agent, store, handle, turn: (a) => a.send(text), json: flags.json === true });
  } catch (error) {
    await store.close().catch(() => undefined);
    await handle?.close().catch(() => undefined);
    throw cliErrorOf(error); // e.g. 'locked': another writer took the session after the check
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
