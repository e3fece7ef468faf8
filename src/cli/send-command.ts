// `keelson send --store postgres://… <id> "prompt" --profile NAME [--no-wait | --follow]`: queues a
// turn for session <id> (created when absent) under the agent profile NAME — always named: a
// worker runs only the profiles it was started with, and the built-in rule-based emulator is a
// profile like any other (`--profile emulator`, served by `keelson worker --emulator`) — and,
// unless --no-wait, waits for a worker to run it (through database restarts: only --timeout-ms
// ends the wait) and prints the outcome: the assistant's text of that turn from the log (with
// --follow: as it streams from the worker, send-follow.ts), then one line on stderr
// `turn <id>: <status> (turn N, <reason>)`. --no-wait prints the turn id only. The answer and the
// error are untrusted text, escaped for the terminal. Exit codes: done 0 · failed 1 · bad input 2
// · interrupted 6 (also: its worker lost and not recovered) · --timeout-ms passed 8 (the
// turn stays queued or running) · Ctrl-C 130 / SIGTERM 143 (the command stops, the turn goes on:
// stderr names it). A turn whose worker died and that no worker will recover ends the wait, with
// or without --follow: exit 6, `worker lost`. --dead-after-ms tells the command the workers'
// setting (decision 0040): with no worker holding its liveness lock that long, the turn is lost.
//
// Nothing is queued that this command cannot then report on: with --follow, what can refuse the
// follow — the schema, reading the fleet's follow key (decision 0037) — is checked before the
// enqueue (`client.checkFollow()`; refused: that error, exit 1, nothing written). A failure
// after the enqueue (following, waiting, reading the answer) is one line naming the turn —
// `turn <id> was queued; following it failed: …` — exit 1: the turn is in the queue, and sending
// again would run the prompt a second time.
import type { Command } from "commander";
import type { FleetClient, TurnRecord } from "../fleet/index.js";
import type { SessionEvent } from "../session/index.js";
import { commandSummary } from "./commands.js";
import { CliError, describeError } from "./errors.js";
import { watchQueuedTurn } from "./queued-notice.js";
import { printFollowedTurn } from "./send-follow.js";
import { terminalJson, terminalLine, terminalText } from "./terminal-text.js";
import { integer, postgresStore } from "./worker-command.js";

interface SendFlags {
  store?: string;
  profile?: string;
  wait: boolean;
  follow?: boolean;
  timeoutMs?: string;
  deadAfterMs?: string;
  json?: boolean;
}

/** What `reportTurn` needs of the flags, checked. */
interface ReportFlags {
  readonly profile: string;
  readonly follow?: boolean;
  readonly json?: boolean;
  readonly timeoutMs: number | undefined;
}

const EXIT: Readonly<Record<string, number>> = { done: 0, failed: 1, interrupted: 6 };
/** What a lost turn's exit adds: the turn is still the queue's (a worker that starts recovers it). */
const LEFT_FOR_RECOVERY = (turnId: string): string =>
  `keelson send: turn ${turnId} stays in the queue: the next worker to start recovers it (interrupted, or run again if its prompt was never saved) — sending the prompt again would run it twice\n`;
const TIMEOUT_EXIT = 8;

export function registerSend(program: Command): void {
  program
    .command("send")
    .description(commandSummary("send"))
    .argument("<id>", "the session (created when it does not exist)")
    .argument("<prompt>", "the prompt")
    .option("--store <url>", "the PostgreSQL database, postgres://… (default $KEELSON_STORE)")
    .option(
      "--profile <name>",
      "the agent profile a worker runs the turn with (required; `emulator`: the built-in rule-based emulator)",
    )
    .option("--no-wait", "print the turn id and exit without waiting")
    .option("--follow", "print the answer as it streams from the worker running the turn (--json: every event)")
    .option("--timeout-ms <ms>", "give up waiting after this long (exit 8; the turn is unaffected)")
    .option(
      "--dead-after-ms <ms>",
      "the workers' --dead-after-ms (default 5000): how long a worker may be without its liveness lock before the turn is given up as lost",
    )
    .option("--json", "print the turn's record as JSON instead of the answer")
    .action(async (id: string, prompt: string, flags: SendFlags) => {
      const url = postgresStore(flags.store, "send");
      const timeoutMs = flags.timeoutMs === undefined ? undefined : integer("--timeout-ms", flags.timeoutMs, 1);
      const deadAfterMs =
        flags.deadAfterMs === undefined ? undefined : integer("--dead-after-ms", flags.deadAfterMs, 100);
      if (prompt.trim() === "") throw new CliError("the prompt is empty");
      if (flags.follow === true && !flags.wait) throw new CliError("--follow and --no-wait exclude each other");
      if (deadAfterMs !== undefined && !flags.wait)
        throw new CliError(
          "--dead-after-ms is for waiting (how soon a turn's worker counts as lost); --no-wait does not wait",
        );
      const profile = flags.profile;
      if (profile === undefined)
        throw new CliError(
          "send needs --profile NAME: the agent profile a worker serves (a worker's --profiles module names them; `--profile emulator` is the built-in rule-based emulator, served by `keelson worker --emulator`)",
        );
      const { DEFAULT_DEAD_AFTER_MS, FleetError, openFleetClient } = await import("../fleet/index.js");
      const client = await openFleetClient(url, deadAfterMs === undefined ? {} : { deadAfterMs });
      try {
        if (flags.follow === true) await client.checkFollow(); // refused: nothing is queued
        let turnId: string;
        try {
          turnId = await client.enqueueTurn({ sessionId: id, prompt, profile });
        } catch (error) {
          // Bad input (exit 2), with its code as every other refusal prints one.
          if (error instanceof FleetError && error.code === "invalid-turn")
            throw new CliError(`invalid-turn: ${error.message}`, 2, { cause: error });
          throw error;
        }
        if (!flags.wait) {
          process.stdout.write(`${turnId}\n`);
          return;
        }
        const step = { doing: flags.follow === true ? "following it" : "waiting for it" };
        // Ctrl-C (or a kill) stops this command, not the turn: say which turn goes on, then exit as interrupted.
        const leave = (signal: NodeJS.Signals) => (): void => {
          process.stderr.write(
            `\nkeelson send: stopped ${step.doing}; turn ${turnId} of session ${id} goes on on the fleet (\`keelson show --store … ${id}\` shows it)\n`,
          );
          process.exit(signal === "SIGINT" ? 130 : 143);
        };
        const onInt = leave("SIGINT");
        const onTerm = leave("SIGTERM");
        process.once("SIGINT", onInt).once("SIGTERM", onTerm);
        const stopWatch = watchQueuedTurn(client, turnId, deadAfterMs ?? DEFAULT_DEAD_AFTER_MS);
        try {
          await reportTurn(client, url, turnId, { ...flags, profile, timeoutMs }, step);
        } catch (error) {
          // The turn is queued (or running, or over): say so, and which, so that nobody sends it again blindly.
          throw new CliError(`turn ${turnId} was queued; ${step.doing} failed: ${describeError(error)}`, 1, {
            cause: error,
          });
        } finally {
          stopWatch();
          process.off("SIGINT", onInt).off("SIGTERM", onTerm);
        }
      } finally {
        await client.close();
      }
    });
}

/**
 * After the enqueue: follows (--follow) and awaits turn `turnId`, prints its outcome and sets the
 * exit code. `step.doing` says what it is at, for the message of a failure.
 */
async function reportTurn(
  client: FleetClient,
  url: string,
  turnId: string,
  flags: ReportFlags,
  step: { doing: string },
): Promise<void> {
  const { FleetError } = await import("../fleet/index.js");
  const { timeoutMs, profile } = flags;
  const deadline = timeoutMs === undefined ? undefined : performance.now() + timeoutMs;
  if (flags.follow === true) {
    const signal = timeoutMs === undefined ? undefined : AbortSignal.timeout(timeoutMs);
    try {
      await printFollowedTurn(client, turnId, {
        json: flags.json === true,
        ...(signal === undefined ? {} : { signal }),
      });
    } catch (error) {
      if (signal?.aborted === true && error === signal.reason) {
        const hint = await unclaimedHint(client, turnId, profile);
        process.stderr.write(
          `keelson send: ${terminalLine(`turn ${turnId}: still following after ${timeoutMs} ms${hint}`)}\n`,
        );
        process.exitCode = TIMEOUT_EXIT;
        return;
      }
      if (error instanceof FleetError && error.code === "worker-lost") {
        await lostTurn(client, turnId, flags, error.message);
        return;
      }
      // not-run: the record says why, below
      if (!(error instanceof FleetError && error.code === "not-run")) throw error;
    }
  }
  step.doing = "waiting for it";
  let record: TurnRecord;
  try {
    // After following, what is left of --timeout-ms (whole ms: the message quotes it).
    const left =
      deadline === undefined || flags.follow !== true
        ? timeoutMs
        : Math.max(1, Math.round(deadline - performance.now()));
    record = await client.awaitTurn(turnId, { untilLost: true, ...(left === undefined ? {} : { timeoutMs: left }) });
  } catch (error) {
    if (error instanceof FleetError && error.code === "worker-lost") {
      await lostTurn(client, turnId, flags, error.message);
      return;
    }
    if (error instanceof FleetError && error.code === "timeout") {
      const hint = await unclaimedHint(client, turnId, profile);
      process.stderr.write(`keelson send: ${terminalLine(`${error.message}${hint}`)}\n`); // a profile name is anyone's text
      process.exitCode = TIMEOUT_EXIT;
      return;
    }
    throw error;
  }
  if (flags.json === true) process.stdout.write(`${terminalJson(JSON.stringify(record))}\n`);
  else if (flags.follow !== true) {
    step.doing = `it ended ${record.status}; reading its answer`;
    const answer = terminalText(await answerOf(url, record));
    if (answer !== "") process.stdout.write(answer.endsWith("\n") ? answer : `${answer}\n`);
  }
  process.stderr.write(`${outcomeLine(record)}\n`);
  process.exitCode = EXIT[record.status] ?? 1;
}

/**
 * Its worker lost (exit 6): the line that says so and that the turn stays queued; with --json, the
 * record as it stands on stdout too, as every other end prints one (found from outside: a script
 * reading stdout could not tell the turn was lost).
 */
async function lostTurn(client: FleetClient, turnId: string, flags: ReportFlags, message: string): Promise<void> {
  if (flags.json === true) {
    const record = await client.turn(turnId).catch(() => undefined); // the line on stderr is what matters
    if (record !== undefined) process.stdout.write(`${terminalJson(JSON.stringify(record))}\n`);
  }
  process.stderr.write(`keelson send: ${terminalLine(message)}\n${LEFT_FOR_RECOVERY(turnId)}`);
  process.exitCode = EXIT.interrupted!;
}

function outcomeLine(record: TurnRecord): string {
  const how = record.outcome === undefined ? "" : ` (turn ${record.outcome.turn}, ${record.outcome.reason})`;
  return `turn ${record.id}: ${record.status}${how}${record.error === undefined ? "" : `: ${terminalLine(record.error)}`}`;
}

/** The text the assistant wrote in the record's turn, read from the stored log (read-only). */
async function answerOf(url: string, record: TurnRecord): Promise<string> {
  if (record.outcome === undefined) return "";
  const { PostgresSessionStore } = await import("../store/postgres/index.js");
  const store = new PostgresSessionStore({ url });
  try {
    const { session } = await store.load(record.sessionId, { readOnly: true });
    return assistantText(session.events, record.outcome.turn);
  } finally {
    await store.close();
  }
}

function assistantText(events: readonly SessionEvent[], turn: number): string {
  let inTurn = false;
  const parts: string[] = [];
  for (const event of events) {
    if (event.type === "turn/start") inTurn = (event.data as { turn: number }).turn === turn;
    else if (inTurn && event.type === "assistant/message") {
      const content = (event.data as { content: readonly { type: string; text?: string }[] }).content;
      for (const block of content) if (block.type === "text" && block.text !== undefined) parts.push(block.text);
    }
  }
  return parts.join("\n");
}

/** What a timed-out wait adds when the turn is still queued: no worker serves its profile, perhaps. */
async function unclaimedHint(client: FleetClient, turnId: string, profile: string): Promise<string> {
  const unclaimed = (await client.turn(turnId).catch(() => undefined))?.status === "queued";
  return unclaimed
    ? `; no worker serving profile ${JSON.stringify(profile)} has claimed it (a worker runs only the profiles it was started with: --profiles MODULE, --emulator)`
    : "";
}
