// `keelson send --store postgres://… <id> "prompt" --profile NAME [--no-wait]`: queues a turn
// for session <id> (created when absent) under the agent profile NAME — always named: a worker
// runs only the profiles it was started with, and the built-in rule-based emulator is a profile
// like any other (`--profile emulator`, served by `keelson worker --emulator`) — and, unless
// --no-wait, waits for a worker to run it (through database restarts: only --timeout-ms ends the
// wait) and prints the outcome: the assistant's text of that turn from the log, then one line on
// stderr `turn <id>: <status> (turn N, <reason>)`. --no-wait prints the turn id only. Exit codes:
// done 0 · failed 1 · bad input 2 · interrupted 6 · --timeout-ms passed 8 (the turn stays queued or running).
import type { Command } from "commander";
import type { TurnRecord } from "../fleet/index.js";
import type { SessionEvent } from "../session/index.js";
import { commandSummary } from "./commands.js";
import { CliError } from "./errors.js";
import { integer, postgresStore } from "./worker-command.js";

interface SendFlags {
  store?: string;
  profile?: string;
  wait: boolean;
  timeoutMs?: string;
  json?: boolean;
}

const EXIT: Readonly<Record<string, number>> = { done: 0, failed: 1, interrupted: 6 };
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
    .option("--timeout-ms <ms>", "give up waiting after this long (exit 8; the turn is unaffected)")
    .option("--json", "print the turn's record as JSON instead of the answer")
    .action(async (id: string, prompt: string, flags: SendFlags) => {
      const url = postgresStore(flags.store, "send");
      const timeoutMs = flags.timeoutMs === undefined ? undefined : integer("--timeout-ms", flags.timeoutMs, 1);
      if (prompt.trim() === "") throw new CliError("the prompt is empty");
      const profile = flags.profile;
      if (profile === undefined)
        throw new CliError(
          "send needs --profile NAME: the agent profile a worker serves (a worker's --profiles module names them; `--profile emulator` is the built-in rule-based emulator, served by `keelson worker --emulator`)",
        );
      const { FleetError, openFleetClient } = await import("../fleet/index.js");
      const client = await openFleetClient(url);
      try {
        let turnId: string;
        try {
          turnId = await client.enqueueTurn({ sessionId: id, prompt, profile });
        } catch (error) {
          if (error instanceof FleetError && error.code === "invalid-turn")
            throw new CliError(error.message, 2, { cause: error });
          throw error;
        }
        if (!flags.wait) {
          process.stdout.write(`${turnId}\n`);
          return;
        }
        let record: TurnRecord;
        try {
          record = await client.awaitTurn(turnId, timeoutMs === undefined ? {} : { timeoutMs });
        } catch (error) {
          if (error instanceof FleetError && error.code === "timeout") {
            const unclaimed = (await client.turn(turnId).catch(() => undefined))?.status === "queued";
            const hint = unclaimed
              ? `; no worker serving profile ${JSON.stringify(profile)} has claimed it (a worker runs only the profiles it was started with: --profiles MODULE, --emulator)`
              : "";
            process.stderr.write(`keelson send: ${error.message}${hint}\n`);
            process.exitCode = TIMEOUT_EXIT;
            return;
          }
          throw error;
        }
        if (flags.json === true) process.stdout.write(`${JSON.stringify(record)}\n`);
        else {
          const answer = await answerOf(url, record);
          if (answer !== "") process.stdout.write(answer.endsWith("\n") ? answer : `${answer}\n`);
        }
        process.stderr.write(`${outcomeLine(record)}\n`);
        process.exitCode = EXIT[record.status] ?? 1;
      } finally {
        await client.close();
      }
    });
}

function outcomeLine(record: TurnRecord): string {
  const how = record.outcome === undefined ? "" : ` (turn ${record.outcome.turn}, ${record.outcome.reason})`;
  return `turn ${record.id}: ${record.status}${how}${record.error === undefined ? "" : `: ${record.error}`}`;
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
