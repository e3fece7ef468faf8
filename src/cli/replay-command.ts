// `keelson replay <id | FILE> [--check] [--live-tools] [--json]`: re-runs a stored session with
// the current Keelson — the CLI's own configuration, as `run` / `resume` / `chat` build their
// agents (system prompt, built-in tools, prefix contributors, compaction; MCP tools come from the
// log, no server is started), or an agent profile (`--profiles MODULE --profile NAME`, or the
// built-in `--emulator` one) for sessions a fleet worker or an agent host ran — with the model
// (and, unless --live-tools, every tool) answering from the log, and compares every rebuilt request
// with the logged one. Prints the report (exit 0); with --check, exit 9 when anything differs.
// Read-only: the log is loaded without a lock and never written.
import { dirname, resolve } from "node:path";
import type { Command } from "commander";
import type { ReplayPayload } from "../inspect/index.js";
import type { ReplayOptions, ReplayReport } from "../replay/index.js";
import type { Session } from "../session/index.js";
import { type SessionStore, JsonlSessionStore } from "../store/index.js";
import { cliPlugins, headlessPolicy, parseSandbox } from "./agent-plugins.js";
import { commandSummary } from "./commands.js";
import { CliError } from "./errors.js";
import { SYSTEM_PROMPT } from "./headless-turn.js";
import { isFileTarget, loadLog, openStore } from "./log-source.js";
import { workingDirectory } from "./run-command.js";
import { profileOptions } from "./profile-options.js";
import { terminalJson, terminalText } from "./terminal-text.js";
import { integer } from "./worker-command.js";

/** `replay --check`: a rebuilt request differs from the logged one. */
export const REPLAY_DIFFERS_EXIT = 9;

interface ReplayFlags {
  readonly check?: boolean;
  readonly liveTools?: boolean;
  readonly json?: boolean;
  readonly cwd?: string;
  readonly profiles?: string;
  readonly profile?: string;
  readonly emulator?: boolean;
  readonly limit?: string;
  readonly sandbox?: string;
}

export function registerReplay(program: Command): void {
  program
    .command("replay")
    .description(commandSummary("replay"))
    .argument("<id|file>", "session id or path to a .jsonl log")
    .option("--check", `exit ${REPLAY_DIFFERS_EXIT} when any rebuilt request differs from the logged one (a CI gate)`)
    .option("--live-tools", "run the tools (current code) instead of answering each call with its logged result")
    .option("--json", "print the report as JSON")
    .option("--cwd <dir>", "workspace of the CLI's tools and prefix contributors (default: the session's cwd)")
    .option(
      "--profiles <module>",
      "replay with an agent profile of this module (sessions a fleet worker ran); needs --profile",
    )
    .option("--profile <name>", "the profile of --profiles (or of --emulator) the session ran with")
    .option("--emulator", "replay with the built-in `emulator` profile (sessions `keelson worker --emulator` ran)")
    .option("--limit <n>", "list at most n differing requests (default 20; 0 for all)")
    .option(
      "--sandbox <mode>",
      "the --sandbox the session ran with (bash's description names its sandbox); default workspace-write",
    )
    .action(async (target: string, flags: ReplayFlags) => {
      process.exitCode = await replay(target, flags);
    });
}

async function replay(target: string, flags: ReplayFlags): Promise<number> {
  const limit = integer("--limit", flags.limit ?? "20", 0);
  const { session } = await loadLog(target);
  const options = { ...(await agentOptions(session, flags)), liveTools: flags.liveTools === true };
  const report = await replayWith(session, options, isFileTarget(target) ? dirname(resolve(target)) : undefined);
  const { replayReportText } = await import("../replay/index.js");
  if (flags.json === true) process.stdout.write(`${terminalJson(JSON.stringify(report, null, 2))}\n`);
  else process.stdout.write(`${terminalText(replayReportText(report, limit === 0 ? {} : { limit }))}\n`);
  return flags.check === true && !report.identical ? REPLAY_DIFFERS_EXIT : 0;
}

/**
 * What `keelson inspect` serves as a session's replay: the CLI's own configuration, as
 * `keelson replay <id>` runs it; `root` is a FILE target's directory (else the CLI's store).
 */
export async function inspectorReplay(session: Session, root: string | undefined): Promise<ReplayPayload> {
  let options: ReplayOptions;
  try {
    options = await agentOptions(session, {});
  } catch (error) {
    // What `keelson replay` calls bad input (a working directory gone): the page's 422, not a 500.
    if (error instanceof CliError) {
      const { InspectError } = await import("../inspect/index.js"); // loaded by the inspector already
      throw new InspectError("unprocessable", error.message);
    }
    throw error;
  }
  const report = await replayWith(session, options, root);
  const { replayReportText } = await import("../replay/index.js");
  return { identical: report.identical, text: replayReportText(report), report };
}

/**
 * Replays with the store where a fork's ancestors and the children a log names are found: the
 * JSONL directory `root` (a FILE target's), else the CLI's store.
 */
async function replayWith(session: Session, options: ReplayOptions, root: string | undefined): Promise<ReplayReport> {
  const store: SessionStore =
    root === undefined ? await openStore() : new JsonlSessionStore({ root, cacheSessions: 0 });
  const { replayLog } = await import("../replay/index.js");
  try {
    return await replayLog(session, options, store);
  } finally {
    await store.close().catch(() => undefined);
  }
}

/** The agent options the session is replayed with: a profile's, or the CLI's own. */
async function agentOptions(session: Session, flags: ReplayFlags): Promise<ReplayOptions> {
  if (flags.profiles !== undefined || flags.emulator === true) return profileOptions(session.id, flags);
  if (flags.profile !== undefined) throw new CliError("--profile names a profile of --profiles MODULE (or --emulator)");
  const cwd = await workingDirectory(flags.cwd, session.header.cwd);
  const { reconstructRequests } = await import("../reconstruct/index.js");
  // chat (and run/resume --await-approval) give the agent ask_user: a log whose tools hold it came from one of them
  const askUser = reconstructRequests(session.events).some((r) => r.header.tools?.some((t) => t.name === "ask_user"));
  const { createCompaction } = await import("../compaction/index.js");
  return {
    cwd,
    system: SYSTEM_PROMPT,
    plugins: await cliPlugins(cwd, headlessPolicy([], false), {
      askUser,
      mcp: false,
      sandbox: parseSandbox(flags.sandbox),
    }),
    compaction: createCompaction(),
  };
}
