// Chat's slash commands: /help, /session, /tools, /prompts, /prompt, /cache, /compact, /fork, /exit. Each reads the live
// agent through a small context; /fork switches the chat to the child session (the parent stays
// stored and resumable); /compact says in plain words when there is nothing to compact or no
// compaction configured. Unknown commands are answered with the list, never sent to the model.
import type { CompactionErrorCode } from "../compaction/index.js";
import { isKeelsonError } from "../errors/index.js";
import type { Agent } from "../loop/index.js";
import { foldRequestHeader } from "../header/index.js";
import { isEventOf } from "../session/index.js";
import { renderCacheReport } from "./cache-table.js";
import { messageText, preview } from "./transcript.js";
import { describeReason } from "./turn-footer.js";
import { cliInvocation } from "./invocation.js";
import { toolListing } from "./mcp-setup.js";
import { terminalLine } from "./terminal-text.js";

export interface ChatContext {
  readonly agent: Agent;
  /** The session's log file. */
  fileOf(id: string): string;
  /** Prints lines of chat output. */
  say(text: string): void;
  /** Prints the footer (tokens, cache, cost) of `turn`. */
  footer(turn: number): void;
  /** Forks the current session at its last turn end and continues the chat in the child. */
  fork(): Promise<Agent>;
}

export type SlashResult = "exit" | { readonly send: string } | undefined;

export interface SlashCommand {
  readonly name: string;
  readonly help: string;
  /** Returns "exit" to end the chat, or `{ send }`: a message the chat sends as if typed. */
  run(ctx: ChatContext, args: string): Promise<SlashResult>;
}

export const SLASH_COMMANDS: readonly SlashCommand[] = [
  {
    name: "help",
    help: "list the commands and keys",
    async run(ctx) {
      ctx.say(
        [
          ...SLASH_COMMANDS.map((c) => `  /${c.name.padEnd(8)} ${c.help}`),
          "  Ctrl-C    cancel the running turn; press it again (or at the prompt, twice) to exit",
          "  anything else is sent to the model as your next message",
        ].join("\n"),
      );
      return undefined;
    },
  },
  {
    name: "session",
    help: "this session: id, log file, model, cwd, turns, and the session prefix (request-only)",
    async run(ctx) {
      const { agent } = ctx;
      const session = agent.session;
      const prefix = foldRequestHeader(session.events)?.messagePrefix ?? [];
      const lines = [
        `  session  ${session.id}${session.header.parentSession === undefined ? "" : ` (fork of ${session.header.parentSession})`}`,
        `  log      ${ctx.fileOf(session.id)}`,
        `  model    ${agent.model}`,
        `  cwd      ${session.header.cwd ?? "-"}`,
        `  turns    ${session.lastTurn} · ${session.length} events · ${session.deriveMessages().length} messages in history`,
        `  prefix   ${prefix.length === 0 ? "none" : `${prefix.length} request-only message${prefix.length === 1 ? "" : "s"} (logged on the request header, not in history):`}`,
        ...prefix.map((m) => `           - ${preview(messageText(m), 90)}`),
      ];
      ctx.say(lines.join("\n"));
      return undefined;
    },
  },
  {
    name: "tools",
    help: "the tools the model is offered: built-in, then each MCP server's (waits for them to connect)",
    async run(ctx) {
      ctx.say(await toolListing(ctx.agent));
      return undefined;
    },
  },
  {
    name: "prompts",
    help: "the prompts the MCP servers offer (use one with /prompt <server>/<name> [key=value …])",
    async run(ctx) {
      const { mcpPrompts } = await import("../mcp/index.js");
      const prompts = await mcpPrompts(ctx.agent);
      ctx.say(
        prompts.length === 0
          ? "  no MCP server offers prompts"
          : prompts
              .map(({ server, prompt }) => {
                const args = prompt.arguments.map((a) => `${a.name}${a.required ? "" : "?"}`).join(" ");
                return terminalLine(
                  `  ${server}/${prompt.name}${args === "" ? "" : ` ${args}`}${prompt.description === undefined ? "" : ` — ${prompt.description}`}`,
                );
              })
              .join("\n"),
      );
      return undefined;
    },
  },
  {
    name: "prompt",
    help: "send an MCP server's prompt as your message: /prompt <server>/<name> [key=value …]",
    async run(ctx, args) {
      const [which = "", ...pairs] = args.split(/\s+/).filter((w) => w !== "");
      const slash = which.indexOf("/");
      if (slash <= 0 || slash === which.length - 1) {
        ctx.say("  usage: /prompt <server>/<name> [key=value …] (/prompts lists them)");
        return undefined;
      }
      const values: Record<string, string> = {};
      for (const pair of pairs) {
        const eq = pair.indexOf("=");
        if (eq <= 0) {
          ctx.say(`  not key=value: ${terminalLine(pair)}`);
          return undefined;
        }
        values[pair.slice(0, eq)] = pair.slice(eq + 1);
      }
      const { mcpPrompt } = await import("../mcp/index.js");
      const text = await mcpPrompt(ctx.agent, which.slice(0, slash), which.slice(slash + 1), values);
      ctx.say(`  sending the prompt ${terminalLine(which)} (${text.length} characters) as your message`);
      return { send: text };
    },
  },
  {
    name: "cache",
    help: "the cache report of this session so far",
    async run(ctx) {
      ctx.say(await renderCacheReport(ctx.agent.session));
      return undefined;
    },
  },
  {
    name: "compact",
    help: "summarize older history now (keeps the system prompt, the prefix and recent turns)",
    async run(ctx) {
      const { agent } = ctx;
      const from = agent.session.length;
      const failures: unknown[] = [];
      const off = agent.hooks.on("agent/error", ({ error, where }) => {
        if (where === "compaction") failures.push(error);
      });
      let outcome: Awaited<ReturnType<Agent["compact"]>>;
      try {
        outcome = await agent.compact();
      } finally {
        off();
      }
      const events = agent.session.events.slice(from);
      const summary = events.find((e) => isEventOf(e, "compact/summary"));
      const end = events.find((e) => isEventOf(e, "compact/end"));
      const reason = outcome.reason;
      if (reason.kind === "error" && reason.code === "invalid-options")
        ctx.say("  no compaction configured: this agent has no `compaction` option, so /compact cannot summarize");
      else if (reason.kind !== "completed") ctx.say(`  compaction turn ${describeReason(reason)}`);
      else if (end !== undefined && isEventOf(end, "compact/end") && end.data.error !== undefined) {
        // Any other failure is on screen already: the view prints the compact/end line.
        if (failures.some((e) => isKeelsonError<CompactionErrorCode>(e, "no-region")))
          ctx.say(
            "  nothing to compact: the history is no longer than the recent part compaction always keeps, so there is no older part to summarize",
          );
      } else if (summary !== undefined) {
        const data = summary.data as { regionTokens?: number; summaryTokens?: number };
        ctx.say(
          `  compacted: ${data.regionTokens ?? "?"} tokens of history → a ${data.summaryTokens ?? "?"}-token summary`,
        );
      } else ctx.say("  nothing to compact yet");
      // The compaction turn is logged (and a summary call is paid): it gets its footer like any other.
      ctx.footer(outcome.turn);
      return undefined;
    },
  },
  {
    name: "fork",
    help: "fork this session at its last turn and continue in the fork (the parent stays resumable)",
    async run(ctx) {
      const parent = ctx.agent.session.id;
      const child = await ctx.fork();
      ctx.say(
        `  forked ${parent} → ${child.session.id}; now chatting in the fork (resume the parent with: ${cliInvocation()} chat --resume ${parent})`,
      );
      return undefined;
    },
  },
  {
    name: "exit",
    help: "end the chat (the session is saved; resume with: keelson chat --resume <id>)",
    async run() {
      return "exit";
    },
  },
];

/** Runs `/name args`; an unknown name prints the list. */
export async function runSlashCommand(ctx: ChatContext, line: string): Promise<SlashResult> {
  const [word = "", ...rest] = line.slice(1).trim().split(/\s+/);
  const name = word === "quit" ? "exit" : word;
  const command = SLASH_COMMANDS.find((c) => c.name === name);
  if (command === undefined) {
    ctx.say(`  unknown command /${word}; commands: ${SLASH_COMMANDS.map((c) => `/${c.name}`).join(" ")}`);
    return undefined;
  }
  return command.run(ctx, rest.join(" "));
}
