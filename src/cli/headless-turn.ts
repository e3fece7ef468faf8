// One headless turn, shared by `run` and `resume`: streams the answer text to stdout (or every
// session event as a JSON line with --json), cancels the turn on SIGINT/SIGTERM, disposes the
// agent and closes the store, and maps the turn's end reason to the exit code:
//   completed 0 · error 1 · (bad input 2) · max-tokens 3 · aborted 4 · rejected 5 ·
//   disposed / interrupted 6 · not saved 7 (the turn ran but the store failed: nothing is claimed saved) ·
//   awaiting-approval / awaiting-input 8 (a tool call waits for `keelson approve|deny|respond`).
// The answer and the reasons quoted on stderr are untrusted text: escaped for the terminal
// (terminal-text.ts); --json lines are JSON with C1/format characters \u-escaped.
import type { TurnEndReason } from "../session/index.js";
import type { Agent, TurnOutcome } from "../loop/index.js";
import type { ProviderHandle } from "./model-selection.js";
import type { CliStore } from "./store-target.js";
import { attachRetryNotice } from "./retry-notice.js";
import { describeError } from "./errors.js";
import { cliInvocation } from "./invocation.js";
import { TerminalTextStream, terminalJson, terminalLine } from "./terminal-text.js";

export const EXIT_CODES: Readonly<Record<TurnEndReason["kind"], number>> = {
  completed: 0,
  error: 1,
  "max-tokens": 3,
  aborted: 4,
  rejected: 5,
  disposed: 6,
  interrupted: 6,
  "awaiting-approval": 8,
  "awaiting-input": 8,
};

/** The turn ran, but its log could not be made durable. */
export const NOT_SAVED_EXIT = 7;

export const SYSTEM_PROMPT =
  "You are Keelson, a careful coding and operations agent working in {{cwd}}. Answer concisely.";

export interface HeadlessTurnInput {
  readonly agent: Agent;
  readonly store: CliStore;
  /** The CLI's provider (closed at the end); absent when an app's profile brought its own. */
  readonly handle?: ProviderHandle;
  /** Starts the turn: `agent.send(prompt)` for run/resume, `agent.decide(…)` for approve/deny. */
  readonly turn: (agent: Agent) => Promise<TurnOutcome>;
  readonly json: boolean;
}

/** Runs the turn and returns the process exit code. */
export async function runHeadlessTurn({ agent, store, handle, turn, json }: HeadlessTurnInput): Promise<number> {
  let endedWithNewline = true;
  const answer = new TerminalTextStream();
  attachRetryNotice(agent, handle?.baseURL ?? "the profile's provider", (line) => process.stderr.write(line));
  if (json) {
    agent.hooks.on("session/event", ({ event }) => {
      process.stdout.write(`${terminalJson(JSON.stringify(event))}\n`);
    });
  } else {
    agent.hooks.on("session/event", ({ event }) => {
      // Each step's text on its own line (a tool step's text, then the answer).
      if (event.type === "step/start" && !endedWithNewline) {
        process.stdout.write(answer.push("\n"));
        endedWithNewline = true;
      }
    });
    agent.hooks.on("llm/chunk", ({ chunk }) => {
      if (chunk.type !== "text-delta" || chunk.text === "") return;
      process.stdout.write(answer.push(chunk.text));
      endedWithNewline = chunk.text.endsWith("\n");
    });
  }
  const cancel = (signal: string) => (): void => agent.cancel(`${signal} received`);
  const onInt = cancel("SIGINT");
  const onTerm = cancel("SIGTERM");
  process.once("SIGINT", onInt);
  process.once("SIGTERM", onTerm);
  try {
    const outcome = await turn(agent);
    if (!json) process.stdout.write(endedWithNewline ? answer.flush() : answer.push("\n"));
    const reason = outcome.reason;
    const detail =
      reason.kind === "error"
        ? `: ${reason.message}`
        : reason.kind === "aborted" || reason.kind === "rejected"
          ? `: ${reason.reason}`
          : "";
    process.stderr.write(
      `keelson: session ${agent.session.id} turn ${outcome.turn} ${reason.kind}${terminalLine(detail)}\n`,
    );
    for (const question of agent.pendingInputs())
      process.stderr.write(
        `keelson: awaiting an answer: ${question.id} ${terminalLine(question.message.slice(0, 200))} — ${cliInvocation()} respond ${agent.session.id} ${question.id} <answer>\n`,
      );
    if (reason.kind === "awaiting-approval")
      for (const pending of agent.pendingApprovals())
        process.stderr.write(
          `keelson: awaiting approval: ${pending.callId} ${terminalLine(pending.tool)} ${terminalLine(pending.arguments.slice(0, 200))} — ${cliInvocation()} approve|deny ${agent.session.id} ${pending.callId}\n`,
        );
    if (outcome.saved === false) {
      process.stderr.write(
        `keelson: session ${agent.session.id} is NOT saved: ${terminalLine(describeError(outcome.storeError))} (${terminalLine(store.whereOf(agent.session.id))} is behind)\n`,
      );
      return NOT_SAVED_EXIT;
    }
    return EXIT_CODES[reason.kind];
  } finally {
    process.off("SIGINT", onInt);
    process.off("SIGTERM", onTerm);
    // A store that failed above fails here too: that is already reported, and the exit code says so.
    await agent.dispose().catch(() => undefined);
    await store.close().catch(() => undefined);
    await handle?.close();
  }
}
