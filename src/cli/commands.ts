// The command table: every `keelson` command's name and one-line summary, and how to load the
// module that defines it. Only the command being run is loaded (each module pulls in the layers
// it needs); the others are listed for `--help` from this table alone, so the CLI starts fast.
import type { Command } from "commander";

export interface CommandEntry {
  readonly name: string;
  readonly summary: string;
  /** Loads the command's module and returns its register function. */
  readonly load: () => Promise<(program: Command) => void>;
}

export const COMMANDS: readonly CommandEntry[] = [
  {
    name: "chat",
    summary: "chat interactively: streamed answers, per-turn token/cache/cost footer, slash commands (/help)",
    load: async () => (await import("./chat-command.js")).registerChat,
  },
  {
    name: "run",
    summary: "run one headless turn in a new session and print the answer",
    load: async () => (await import("./run-command.js")).registerRun,
  },
  {
    name: "resume",
    summary: "resume a stored session (or the most recently used with --last) and run one headless turn",
    load: async () => (await import("./resume-command.js")).registerResume,
  },
  {
    name: "approvals",
    summary: "list the tool calls waiting for a person's approval, across stored sessions",
    load: async () => (await import("./approvals-command.js")).registerApprovals,
  },
  {
    name: "approve",
    summary: "approve a pending tool call (keelson approvals) and continue its turn headlessly",
    load: async () => (await import("./decide-command.js")).registerApprove,
  },
  {
    name: "deny",
    summary: "deny a pending tool call (the model reads the note) and continue its turn headlessly",
    load: async () => (await import("./decide-command.js")).registerDeny,
  },
  {
    name: "respond",
    summary: "answer a pending question (ask_user) and continue its turn headlessly",
    load: async () => (await import("./decide-command.js")).registerRespond,
  },
  {
    name: "mcp",
    summary:
      "MCP servers of mcp.json: `mcp list` (each server and whether it is logged in), `mcp login <server>` (OAuth), `mcp logout <server>`",
    load: async () => (await import("./mcp-command.js")).registerMcp,
  },
  {
    name: "fork",
    summary: "create a child session of <id> at a turn/end boundary and print its id",
    load: async () => (await import("./fork-command.js")).registerFork,
  },
  {
    name: "sessions",
    summary: "list stored sessions ($KEELSON_HOME/sessions)",
    load: async () => (await import("./sessions-command.js")).registerSessions,
  },
  {
    name: "show",
    summary: "print a readable transcript of a stored session",
    load: async () => (await import("./show-command.js")).registerShow,
  },
  {
    name: "requests",
    summary: "print every reconstructed request of a session as JSON",
    load: async () => (await import("./requests-command.js")).registerRequests,
  },
  {
    name: "verify",
    summary: "check a stored log's structure and reconstruct every request; exit 1 if it is not clean",
    load: async () => (await import("./verify-command.js")).registerVerify,
  },
  {
    name: "replay",
    summary:
      "re-run a stored session with the current code (model answers from the log) and compare every rebuilt request; --check exits 9 on a difference",
    load: async () => (await import("./replay-command.js")).registerReplay,
  },
  {
    name: "cache",
    summary: "print the cache report of a stored session",
    load: async () => (await import("./cache-command.js")).registerCache,
  },
  {
    name: "db",
    summary:
      "set up a PostgreSQL session store: `db migrate --url postgres://…` creates or upgrades its tables; `db rotate-follow-key` replaces the fleet's follow key",
    load: async () => (await import("./db-command.js")).registerDb,
  },
  {
    name: "worker",
    summary: "serve the PostgreSQL turn queue: claim queued turns and run them with code-defined agent profiles",
    load: async () => (await import("./worker-command.js")).registerWorker,
  },
  {
    name: "send",
    summary: "queue a prompt for a session on the PostgreSQL turn queue and wait for a worker's outcome",
    load: async () => (await import("./send-command.js")).registerSend,
  },
  {
    name: "inspect",
    summary:
      "serve a read-only web inspector of stored sessions on 127.0.0.1 (timeline, requests, headers, cache, live)",
    load: async () => (await import("./inspect-command.js")).registerInspect,
  },
  {
    name: "emulator",
    summary: "serve the offline provider emulator (Anthropic and OpenAI wire formats) until Ctrl-C",
    load: async () => (await import("./emulator-command.js")).registerEmulator,
  },
  {
    name: "doctor",
    summary: "check this machine: Node, Keelson's home, and whether the bash sandbox (bubblewrap) works here",
    load: async () => (await import("./doctor-command.js")).registerDoctor,
  },
  {
    name: "demo",
    summary:
      "the offline main job: an agent on the built-in emulator, resumed and forked, then verified and cache-audited",
    load: async () => (await import("./demo-command.js")).registerDemo,
  },
];

/** The summary of a command, for its module's `.description()`. */
export function commandSummary(name: string): string {
  const entry = COMMANDS.find((c) => c.name === name);
  if (entry === undefined) throw new TypeError(`no command ${name} in the command table`);
  return entry.summary;
}
