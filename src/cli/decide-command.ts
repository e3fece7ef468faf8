// `keelson approve|deny <session> <callId> [--note TEXT] [--by NAME] [--arguments JSON]` and
// `keelson respond <session> <id> <answer>`: decide a pending approval (or answer a pending
// question) and continue the paused turn headlessly, like `resume`: a new loop
// instance over the stored session logs the `approval/decision` (through `agent.decide`, the
// path every decider takes) and, once no approval of the step is pending, runs the held calls
// and calls the model again — its answer on stdout, the exit code from how that turn ended
// (8: awaiting-approval, when other calls still wait or a later call needs approval again).
// The call is checked read-only first: an unknown session or call, a call that needs no
// approval, one already decided or cancelled is exit 2 and nothing is locked or written.
import { userInfo } from "node:os";
import type { Command } from "commander";
import type { JsonValue } from "../json/index.js";
import type { Agent, ApprovalDecision, TurnOutcome } from "../loop/index.js";
import type { Session } from "../session/index.js";
import { type SessionPauses, sessionPauses, storeReader } from "../store/index.js";
import {
  AWAIT_APPROVAL_HELP,
  cliPlugins,
  headlessPolicy,
  parseAllow,
  parseSandbox,
  SANDBOX_HELP,
} from "./agent-plugins.js";
import { commandSummary } from "./commands.js";
import { CliError } from "./errors.js";
import { runHeadlessTurn, SYSTEM_PROMPT } from "./headless-turn.js";
import { cliErrorOf, openStore } from "./log-source.js";
import { openProvider, type ProviderHandle, requireKey } from "./model-selection.js";
import { resumeTarget } from "./resume-command.js";
import type { TurnFlags } from "./run-command.js";
import { askingSession, heldSubagentTools } from "./subagent-target.js";
import { type ProfileFlags, profileOptions } from "./profile-options.js";

interface DecideFlags extends TurnFlags, ProfileFlags {
  readonly note?: string;
  readonly by?: string;
  readonly arguments?: string;
  /** The subagent session the call waits in, when its id alone is ambiguous. */
  readonly session?: string;
}

export const registerApprove = (program: Command): void => register(program, "approve");
export const registerDeny = (program: Command): void => register(program, "deny");
export const registerRespond = (program: Command): void => register(program, "respond");

function register(program: Command, verb: "approve" | "deny" | "respond"): void {
  const command = program
    .command(verb)
    .description(commandSummary(verb))
    .argument("<session>", "session id")
    .argument("<callId>", "the tool call's id (keelson approvals lists them)");
  if (verb === "respond") command.argument("<answer>", "the answer: text for a text question, else JSON");
  else command.option("--note <text>", verb === "deny" ? "why (the model reads it)" : "a note for the log");
  command.option("--by <name>", "who decides or answers (logged; default: the OS user name)");
  command.option(
    "--session <id>",
    "the subagent session the call waits in (default: found among the session's subagents; needed when the id is in several)",
  );
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
    .option("--sandbox <mode>", SANDBOX_HELP)
    .option(
      "--profiles <module>",
      "continue with an agent profile of this module (as `keelson worker` loads it; needs --profile): its model, tools and plugins — a subagent's held call runs the app's own child",
    )
    .option("--profile <name>", "the profile of --profiles the session runs with")
    .action(async (session: string, callId: string, ...rest: unknown[]) => {
      const answer = verb === "respond" ? (rest[0] as string) : undefined;
      const flags = (verb === "respond" ? rest[1] : rest[0]) as DecideFlags;
      process.exitCode =
        answer === undefined
          ? await decide(session, callId, verb === "approve", flags)
          : await respond(session, callId, answer, flags);
    });
}

async function decide(id: string, callId: string, approve: boolean, flags: DecideFlags): Promise<number> {
  const decision: ApprovalDecision = {
    approve,
    by: flags.by ?? osUser(),
    ...(flags.note === undefined ? {} : { note: flags.note }),
    ...(flags.arguments === undefined ? {} : { arguments: flags.arguments }),
  };
  const { pendingRequest } = await import("../loop/index.js");
  return continuePaused(id, flags, {
    check: (session, pauses) => {
      const matches = pauses.approvals.filter((a) => a.callId === callId);
      const at = askingSession(session.id, matches, flags.session, `call ${callId}`).session;
      if (at === undefined) pendingRequest(session, callId); // this session's: the log says why it is not pending
      return at;
    },
    turn: (agent, at) => agent.decide(callId, at === undefined ? decision : { ...decision, session: at }),
  });
}

/** `keelson respond <session> <id> <answer>`: the answer is text for a text question, else JSON. */
async function respond(id: string, questionId: string, text: string, flags: DecideFlags): Promise<number> {
  const { checkedAnswer, pendingInput } = await import("../loop/index.js");
  let answer: { value: JsonValue; by: string } | undefined;
  return continuePaused(id, flags, {
    check: (session, pauses) => {
      const matches = pauses.inputs.filter((q) => q.id === questionId);
      const { session: at, request } = askingSession(session.id, matches, flags.session, `question ${questionId}`);
      const question = request ?? pendingInput(session, questionId);
      let value: JsonValue = text;
      if (question.schema.type !== "string") {
        try {
          value = JSON.parse(text) as JsonValue;
        } catch {
          throw new CliError(`the answer to ${questionId} must be JSON (its schema is not a plain string)`);
        }
      }
      answer = { value, by: flags.by ?? osUser(), ...(at === undefined ? {} : { session: at }) };
      checkedAnswer(question, answer);
      return at;
    },
    turn: (agent) => agent.respond(questionId, answer!),
  });
}

interface Continuation {
  /**
   * Checks the paused call read-only (throws the loop's typed error, or a CliError), given what
   * the session and its subagents wait for; returns the subagent session it waits in (undefined: this one).
   */
  readonly check: (session: Session, pauses: SessionPauses) => string | undefined;
  /** Starts the continuing turn on the resumed agent (`at`: the subagent session answered in). */
  readonly turn: (agent: Agent, at: string | undefined) => Promise<TurnOutcome>;
}

/** Checks read-only, then resumes the session and runs the continuing turn headlessly. */
async function continuePaused(id: string, flags: DecideFlags, continuation: Continuation): Promise<number> {
  const allow = parseAllow(flags.allow);
  const sandbox = parseSandbox(flags.sandbox);
  const store = await openStore();
  let handle: ProviderHandle | undefined;
  const { resumeAgent, ApprovalError, InputError } = await import("../loop/index.js");
  const typed = (error: unknown): unknown =>
    error instanceof ApprovalError || error instanceof InputError
      ? new CliError(`${error.code}: ${error.message}`)
      : error;
  try {
    const target = await resumeTarget(store, id, flags);
    const { session } = await store.load(target.id, { readOnly: true }).catch((error: unknown) => {
      throw cliErrorOf(error);
    });
    const pauses = await sessionPauses(session, storeReader(store));
    let at: string | undefined;
    try {
      at = continuation.check(session, pauses);
    } catch (error) {
      throw typed(error);
    }
    let agent: Agent;
    if (flags.profiles !== undefined || flags.profile !== undefined) {
      // The app's profile, as a fleet worker runs it: its tools hold the real subagent tools.
      const options = await profileOptions(target.id, flags);
      const tools = [...(options.tools ?? []), ...(await heldSubagentTools(pauses, options.tools))];
      agent = await resumeAgent(store, target.id, { cwd: target.cwd, ...options, tools });
    } else {
      requireKey(target.choice);
      handle = await openProvider(target.choice, process.env, (line) => process.stderr.write(`${line}\n`));
      const awaiting = flags.awaitApproval !== false;
      const plugins = await cliPlugins(target.cwd, headlessPolicy(allow, awaiting), { askUser: awaiting, sandbox });
      agent = await resumeAgent(store, target.id, {
        provider: handle.provider,
        model: target.choice.model,
        cwd: target.cwd,
        system: SYSTEM_PROMPT,
        plugins,
        // A child's call: the held calls that lead to it need a subagent tool of their name (a stand-in).
        ...(at === undefined ? {} : { tools: await heldSubagentTools(pauses) }),
      });
    }
    // Decided or answered by someone else since the check, an edit the tool refuses: bad input.
    const turn = (resumed: Agent): Promise<TurnOutcome> => continuation.turn(resumed, at);
    const input = { agent, store, turn, json: flags.json === true, ...(handle === undefined ? {} : { handle }) };
    return await runHeadlessTurn(input).catch((error: unknown) => {
      throw typed(error);
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
