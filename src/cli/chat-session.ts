// The interactive chat (`keelson chat`): a REPL over one agent at a time. Lines are sent as
// turns (streamed by ChatView, with the per-turn footer from the log), `/…` lines are slash
// commands (chat-commands.ts), and the mutating built-in tools ask before they run
// (y / n / always). Ctrl-C cancels the running turn; a second Ctrl-C — during the cancel, or at
// the prompt — exits cleanly: the agent is disposed (closing any open turn), the log flushed and
// the store closed. End of input (Ctrl-D, or the end of piped stdin) exits the same way.
import { createInterface } from "node:readline";
import { createCompaction } from "../compaction/index.js";
import type { JsonValue } from "../json/index.js";
import {
  type AgentOptions,
  type Agent,
  createAgent,
  forkAgent,
  type InputAnswer,
  type PendingInput,
  resumeAgent,
} from "../loop/index.js";
import { ModelRegistry } from "../llm/index.js";
import type { SandboxMode } from "../sandbox/index.js";
import { SessionError } from "../session/index.js";
import {
  type PermissionAnswer,
  type PermissionPolicy,
  type PermissionRequest,
  showable,
} from "../builtin-tools/index.js";
import type { CliStore } from "./store-target.js";
import { cliPlugins } from "./agent-plugins.js";
import { type ChatContext, runSlashCommand } from "./chat-commands.js";
import { ChatInput } from "./chat-input.js";
import { ChatView } from "./chat-view.js";
import { CliError, describeError } from "./errors.js";
import { SYSTEM_PROMPT } from "./headless-turn.js";
import { type ModelChoice, openProvider, type ProviderHandle } from "./model-selection.js";
import { cliInvocation } from "./invocation.js";
import { mcpStatusLines } from "./mcp-setup.js";
import { terminalLine } from "./terminal-text.js";

/** What to chat in: a new session (no id) or a stored one, with the model and cwd to use. */
export interface ChatTarget {
  readonly id?: string;
  readonly choice: ModelChoice;
  readonly cwd: string;
}

const PROMPT = "› ";

/** Runs the chat until /exit, end of input, or a second Ctrl-C; returns the exit code (0). */
export async function runChat(
  store: CliStore,
  target: ChatTarget,
  allow: readonly string[],
  sandbox: SandboxMode = "workspace-write",
): Promise<number> {
  let handle: ProviderHandle | undefined;
  let agent: Agent | undefined;
  const interactive = process.stdin.isTTY === true;
  const rl = createInterface({
    input: process.stdin,
    ...(interactive ? { output: process.stdout } : {}),
    terminal: interactive,
  });
  // Attached at once: piped lines arrive while the provider starts, and must not be dropped.
  const input = new ChatInput(rl, process.stdout, interactive);
  try {
    handle = await openProvider(target.choice, process.env, (line) => process.stderr.write(`${line}\n`));

    const view = new ChatView(process.stdout, process.stderr, new ModelRegistry());
    view.endpoint = handle.baseURL;
    const policy: PermissionPolicy = {
      mode: "ask",
      allow: new Set(allow),
      ask: (request) => askPermission(input, view, request),
    };
    const provider = handle.provider;
    const optionsFor = async (): Promise<Omit<AgentOptions, "store">> => ({
      provider,
      model: target.choice.model,
      cwd: target.cwd,
      system: SYSTEM_PROMPT,
      plugins: await cliPlugins(target.cwd, policy, { askUser: true, sandbox }),
      // ask_user's questions are asked here, live (a question the person leaves unanswered pauses the turn).
      answerer: async (request) => askQuestion(input, view, request),
      compaction: createCompaction(),
    });
    agent =
      target.id === undefined
        ? createAgent({ ...(await optionsFor()), store })
        : await resumeAgent(store, target.id, await optionsFor());
    let detach = view.attach(agent);

    const state = { running: false, interrupts: 0 };
    const current = (): Agent => agent!;
    const onInterrupt = (): void => {
      state.interrupts++;
      if (state.running && state.interrupts === 1) {
        input.interrupt(); // a pending permission question is answered "no"
        current().cancel("interrupted by the user (Ctrl-C)");
        view.line("^C cancelling the turn — press Ctrl-C again to exit");
        return;
      }
      if (state.interrupts >= 2) {
        view.line("^C exiting");
        input.close();
        if (state.running) void current().dispose();
        return;
      }
      view.line("(press Ctrl-C again, or type /exit, to quit)");
      if (interactive) rl.prompt();
    };
    const onTerminate = (): void => {
      state.interrupts = 2;
      input.close();
      if (state.running) void current().dispose();
    };
    rl.on("SIGINT", onInterrupt);
    process.on("SIGINT", onInterrupt);
    process.on("SIGTERM", onTerminate);

    const ctx: ChatContext = {
      get agent() {
        return current();
      },
      fileOf: (id) => store.whereOf(id),
      say: (text) => view.line(text),
      footer: (turn) => view.footer(current(), turn),
      fork: async () => {
        const parent = current();
        let child: Agent;
        try {
          child = await forkAgent(store, parent.session.id, await optionsFor());
        } catch (error) {
          if (error instanceof SessionError) throw new CliError(`cannot fork yet: ${error.message}`);
          throw error;
        }
        detach();
        await parent.dispose();
        agent = child;
        detach = view.attach(child);
        return child;
      },
    };

    view.line(`keelson chat · session ${agent.session.id} · ${target.choice.model} · cwd ${target.cwd}`);
    for (const line of await mcpStatusLines(agent)) view.line(line);
    view.line("type a message; /help for commands; Ctrl-C cancels a turn, twice exits");
    // A session paused for approval (by a headless run, or a tool with no live decider) is
    // answered first, through agent.decide — the path every decider takes.
    await answerPending(current(), input, view);
    try {
      for (;;) {
        const line = await input.next(PROMPT);
        if (line === undefined) break;
        state.interrupts = 0;
        let text = line.trim();
        if (text === "") continue;
        if (text.startsWith("/")) {
          state.running = true;
          let result: Awaited<ReturnType<typeof runSlashCommand>>;
          try {
            result = await runSlashCommand(ctx, text);
          } catch (error) {
            view.line(`  ${describeError(error)}`);
            continue;
          } finally {
            state.running = false;
          }
          if (result === "exit") break;
          if (result === undefined) continue;
          text = result.send; // a command that sends a message (/prompt): a turn like typed text
        }
        state.running = true;
        try {
          const outcome = await current().send(text);
          view.footer(current(), outcome.turn);
          if (outcome.reason.kind === "awaiting-approval" || outcome.reason.kind === "awaiting-input")
            await answerPending(current(), input, view);
          if (outcome.saved === false)
            view.line(
              `  session NOT saved: ${describeError(outcome.storeError)} — the log on disk is behind; your next message retries saving first (and is refused while saving fails), /exit quits`,
            );
        } catch (error) {
          view.line(`keelson: ${describeError(error)}`);
        } finally {
          state.running = false;
        }
        if (input.closed && state.interrupts >= 2) break;
      }
    } finally {
      rl.off("SIGINT", onInterrupt);
      process.off("SIGINT", onInterrupt);
      process.off("SIGTERM", onTerminate);
      detach();
    }
    const id = current().session.id;
    const notSaved = await current()
      .dispose()
      .then(
        () => (current().saved === false ? "the store refused the session" : undefined),
        (error: unknown) => describeError(error),
      );
    await store.close().catch(() => undefined);
    if (notSaved !== undefined) {
      view.line(
        `session ${id} is NOT saved (${notSaved}); ${store.whereOf(id)} does not hold everything this chat did`,
      );
      return 1;
    }
    view.line(`session ${id} saved in ${store.whereOf(id)} — continue with: ${cliInvocation()} chat --resume ${id}`);
    return 0;
  } finally {
    rl.close();
    await agent?.dispose().catch(() => undefined);
    await handle?.close().catch(() => undefined);
  }
}

/**
 * Asks about each pending approval of `agent` in turn (`allow <tool>: <arguments>?`), decides it
 * through `agent.decide` (`by: "user"`), and shows the continued turn's footer. Stops at the end
 * of input (the approvals stay pending) or when none is left.
 */
export async function answerPending(agent: Agent, input: ChatInput, view: ChatView): Promise<void> {
  for (;;) {
    const [question] = agent.pendingInputs();
    const [pending] = agent.pendingApprovals();
    if (input.closed) return;
    if (pending === undefined && question !== undefined) {
      const answer = await askQuestion(input, view, question);
      if (answer === undefined) return;
      try {
        view.footer(agent, (await agent.respond(question.id, answer)).turn);
      } catch (error) {
        view.line(`  ${describeError(error)}`);
        return;
      }
      continue;
    }
    if (pending === undefined) return;
    view.line(`  ⏸ ${pending.tool} waits for approval (${pending.reason})`);
    const answer = await askPermission(input, view, {
      tool: pending.tool,
      summary: showable(pending.arguments, false),
    });
    if (input.closed) return;
    try {
      const outcome = await agent.decide(pending.callId, {
        approve: answer !== "no",
        by: "user",
        ...(answer === "no" ? { note: `the user declined to let ${pending.tool} run` } : {}),
      });
      view.footer(agent, outcome.turn);
    } catch (error) {
      view.line(`  ${describeError(error)}`);
      return;
    }
  }
}

/**
 * Asks a tool's question (`ask_user`): the message, then one line — the answer as text for a
 * text question, else as JSON (a line that is not JSON is asked again; an empty one or the end of
 * input leaves the question unanswered).
 */
export async function askQuestion(
  input: ChatInput,
  view: ChatView,
  request: PendingInput,
): Promise<InputAnswer | undefined> {
  view.pause();
  view.line(`  ? ${terminalLine(request.message)}`);
  const text = request.schema.type === "string";
  for (;;) {
    const line = await input.next(text ? "  answer: " : "  answer (JSON): ");
    if (line === undefined || line.trim() === "") return undefined;
    if (text) return { value: line, by: "user" };
    try {
      return { value: JSON.parse(line) as JsonValue, by: "user" };
    } catch {
      view.line("  that is not JSON; try again (an empty line leaves the question unanswered)");
    }
  }
}

/** Over this many lines, the question says how long the summary above it is. */
const LONG_SUMMARY_LINES = 8;

/**
 * Asks whether `request` may run. The summary is shown whole (the gate escaped its control
 * characters; the terminal wraps long lines): inline when it is one line, else line by line under
 * `allow <tool>:` with the question after it, each run of blank lines as one line saying how many
 * — and the question of a long one names its length, so a harmless last line cannot pass for the
 * whole (found from outside: a payload, 300 newlines and `ls -la` showed as `│ ls -la`).
 */
export async function askPermission(
  input: ChatInput,
  view: ChatView,
  request: PermissionRequest,
): Promise<PermissionAnswer> {
  view.pause();
  const lines = request.summary.split("\n");
  let question = `  allow ${request.tool}: ${request.summary}? [y]es / [n]o / [a]lways: `;
  if (lines.length > 1) {
    view.line(`  allow ${request.tool} (${lines.length} lines):`);
    for (let i = 0; i < lines.length; i++) {
      let blank = i;
      while (blank < lines.length && lines[blank]!.trim() === "") blank++;
      if (blank - i > 1) {
        view.line(`    │ [… ${blank - i} blank lines …]`);
        i = blank - 1;
      } else view.line(`    │ ${lines[i]}`);
    }
    const length = lines.length > LONG_SUMMARY_LINES ? ` (all ${lines.length} lines above, from its first)` : "";
    question = `  allow ${request.tool}${length}? [y]es / [n]o / [a]lways: `;
  }
  for (;;) {
    const answer = await input.next(question);
    if (answer === undefined) return "no";
    const word = answer.trim().toLowerCase();
    if (word === "y" || word === "yes") return "yes";
    if (word === "n" || word === "no" || word === "") return "no";
    if (word === "a" || word === "always") return "always";
    view.line("  please answer y, n or always");
  }
}
