// `keelson approve|deny <session> <callId> [--note TEXT] [--by NAME] [--arguments JSON]`: decides
// a pending approval and continues the paused turn headlessly, like `resume`: a new loop
// instance over the stored session logs the `approval/decision` (through `agent.decide`, the
// path every decider takes) and, once no approval of the step is pending, runs the held calls
// and calls the model again — its answer on stdout, the exit code from how that turn ended
// (8: awaiting-approval, when other calls still wait or a later call needs approval again).
// The call is checked read-only first: an unknown session or call, a call that needs no
// approval, one already decided or cancelled is exit 2 and nothing is locked or written.
import { userInfo } from "node:os";
import type { Command } from "commander";
import type { ApprovalDecision } from "../loop/index.js";
import { AWAIT_APPROVAL_HELP, cliPlugins, headlessPolicy, parseAllow } from "./agent-plugins.js";
import { summaryOf } from "./commands.js";
import { CliError } from "./errors.js";
import { runHeadlessTurn, SYSTEM_PROMPT } from "./headless-turn.js";
import { cliErrorOf, openStore } from "./log-source.js";
import { openProvider, type ProviderHandle, requireKey } from "./model-selection.js";
import { resumeTarget } from "./resume-command.js";
import type { TurnFlags } from "./run-command.js";

interface DecideFlags extends TurnFlags {
  readonly note?: string;
  readonly by?: string;
  readonly arguments?: string;
}

export const registerApprove = (program: Command): void => register(program, "approve");
export const registerDeny = (program: Command): void => register(program, "deny");

function register(program: Command, verb: "approve" | "deny"): void {
  const command = program
    .command(verb)
    .description(summaryOf(verb))
    .argument("<session>", "session id")
    .argument("<callId>", "the tool call's id (keelson approvals lists them)")
    .option("--note <text>", verb === "deny" ? "why (the model reads it)" : "a note for the log")
    .option("--by <name>", "who decides (logged; default: the OS user name)");
  if (verb === "approve")
    command.option("--arguments <json>", "run the call with these arguments instead (a tool that allows edits)");
  command
    .option(
      "-m, --model <provider:model>",
      "model selector; default $KEELSON_MODEL, else the model the session last used",
    )
    .option("--json", "print every session event as a JSON line instead of the answer text")
    .option("--cwd <dir>", "working directory (default: the session's)")
    .option("--allow <tools>", "let these tools run in the continued turn without asking (as for run)")
    .option("--no-await-approval", `deny calls that need approval later in the turn instead (${AWAIT_APPROVAL_HELP})`)
    .action(async (session: string, callId: string, flags: DecideFlags) => {
      process.exitCode = await decide(session, callId, verb === "approve", flags);
    });
}

async function decide(id: string, callId: string, approve: boolean, flags: DecideFlags): Promise<number> {
  const allow = parseAllow(flags.allow);
  const decision: ApprovalDecision = {
    approve,
    by: flags.by ?? osUser(),
    ...(flags.note === undefined ? {} : { note: flags.note }),
    ...(flags.arguments === undefined ? {} : { arguments: flags.arguments }),
  };
  const store = await openStore();
  let handle: ProviderHandle | undefined;
  try {
    const target = await resumeTarget(store, id, flags);
    const { pendingRequest, resumeAgent, ApprovalError } = await import("../loop/index.js");
    const { session } = await store.load(target.id, { readOnly: true }).catch((error: unknown) => {
      throw cliErrorOf(error);
    });
    try {
      pendingRequest(session, callId);
    } catch (error) {
      if (error instanceof ApprovalError) throw new CliError(`${error.code}: ${error.message}`);
      throw error;
    }
    requireKey(target.choice);
    handle = await openProvider(target.choice, process.env, (line) => process.stderr.write(`${line}\n`));
    const plugins = await cliPlugins(target.cwd, headlessPolicy(allow, flags.awaitApproval !== false));
    const agent = await resumeAgent(store, target.id, {
      provider: handle.provider,
      model: target.choice.model,
      cwd: target.cwd,
      system: SYSTEM_PROMPT,
      plugins,
    });
    return await runHeadlessTurn({
      agent,
      store,
      handle,
      turn: (a) => a.decide(callId, decision),
      json: flags.json === true,
    }).catch((error: unknown) => {
      // Decided by someone else since the check, an edit the tool refuses, a refusal: bad input.
      if (error instanceof ApprovalError) throw new CliError(`${error.code}: ${error.message}`);
      throw error;
    });
  } catch (error) {
    await store.close().catch(() => undefined);
    await handle?.close().catch(() => undefined);
    throw cliErrorOf(error);
  }
}

function osUser(): string {
  try {
    return userInfo().username || "cli";
  } catch {
    return "cli";
  }
}
