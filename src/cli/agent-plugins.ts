// The plugins every CLI agent runs with (run, resume, chat): the built-in tools over the
// session's cwd behind a permission policy, and the session-prefix contributors (skills catalog,
// AGENTS.md / CLAUDE.md instructions, workspace baseline). Headless commands deny the mutating
// tools (write, edit, bash) unless `--allow` names them; chat asks. The MCP servers of
// `.keelson/mcp.json` (mcp-setup.ts) are plugged in behind the same policy. `bash` runs in the
// sandbox `--sandbox` names (default workspace-write; src/sandbox), refusing where it cannot start.
import type { AgentPlugin } from "../loop/index.js";
import type { MutatingToolName, PermissionPolicy } from "../builtin-tools/index.js";
import { keelsonHome } from "../home/index.js";
import { resolve } from "node:path";
import { DEFAULT_HIDDEN_PATHS, SANDBOX_MODES, type SandboxMode, type SandboxOptions } from "../sandbox/index.js";
import { CliError } from "./errors.js";
import { isPostgresUrl } from "./jsonl-target.js";
import { cliMcpPlugin } from "./mcp-setup.js";
import { storeSpec } from "./store-choice.js";

const MUTATING: readonly MutatingToolName[] = ["write", "edit", "bash"];

/** An MCP name `--allow` takes: every MCP tool (`mcp`), a server's (`mcp__srv`) or one tool (`mcp__srv__tool`). */
const MCP_ALLOW = /^mcp(__[A-Za-z0-9_-]+)?$/;

/** Parses `--allow write,bash,mcp__srv`; an unknown name is a CliError. */
export function parseAllow(text: string | undefined): string[] {
  if (text === undefined) return [];
  const names = text
    .split(",")
    .map((n) => n.trim())
    .filter((n) => n !== "");
  for (const name of names) {
    if (!(MUTATING as readonly string[]).includes(name) && !MCP_ALLOW.test(name))
      throw new CliError(
        `invalid --allow ${JSON.stringify(name)}: expected a comma list of ${MUTATING.join(", ")}, mcp (every MCP tool), mcp__<server> or mcp__<server>__<tool>`,
      );
  }
  return names;
}

/** Headless: mutating tools (and MCP tools) denied unless allowed. */
export function denyUnlessAllowed(allow: readonly string[]): PermissionPolicy {
  return { mode: "deny", allow: new Set(allow) };
}

/**
 * Headless: denied unless allowed, or with `awaitApproval` paused for a person — the turn ends
 * `awaiting-approval` (exit 8) and `keelson approve|deny` continues it (ask mode with nobody to ask).
 */
export function headlessPolicy(allow: readonly string[], awaitApproval: boolean): PermissionPolicy {
  return awaitApproval ? { mode: "ask", allow: new Set(allow) } : denyUnlessAllowed(allow);
}

export const SANDBOX_HELP = `where bash runs: ${SANDBOX_MODES.join(", ")} (default workspace-write: writes only in the workspace and a private /tmp, secrets hidden, no network; refused where the sandbox cannot start — keelson doctor says whether it works here)`;

/** Parses `--sandbox`; absent is workspace-write, anything but a mode is a CliError. */
export function parseSandbox(text: string | undefined): SandboxMode {
  if (text === undefined) return "workspace-write";
  if (!(SANDBOX_MODES as readonly string[]).includes(text))
    throw new CliError(`invalid --sandbox ${JSON.stringify(text)}: expected one of ${SANDBOX_MODES.join(", ")}`);
  return text as SandboxMode;
}

export const AWAIT_APPROVAL_HELP =
  "a write, edit, bash or MCP call not named by --allow pauses the turn (exit 8) until `keelson approve|deny <session> <callId>`, instead of being denied";

/** One stderr line when bash's sandbox cannot start here: every command would be refused. */
async function warnIfUnsandboxable(mode: SandboxMode): Promise<void> {
  if (mode === "off") return;
  const { sandboxSupport } = await import("../sandbox/index.js");
  const support = await sandboxSupport();
  if (!support.ok)
    process.stderr.write(
      `keelson: the bash sandbox cannot start here (${support.reason}): bash will refuse every command — ${support.fix}, or pass --sandbox off to run commands unconfined\n`,
    );
}

/**
 * `askUser`: also give the agent `ask_user` — chat answers its questions live; headless with
 * `--await-approval` a question pauses the turn for `keelson respond`. `sandbox`: bash's
 * (`--sandbox`; default workspace-write). `mcp: false` leaves the MCP servers of mcp.json out
 * (`keelson replay` takes MCP tools from the log, starting none).
 */
export async function cliPlugins(
  cwd: string,
  permissions: PermissionPolicy,
  options: { readonly askUser?: boolean; readonly sandbox?: SandboxMode; readonly mcp?: boolean } = {},
): Promise<AgentPlugin[]> {
  const [{ builtinTools }, context] = await Promise.all([
    import("../builtin-tools/index.js"),
    import("../context/index.js"),
  ]);
  const home = keelsonHome();
  const mcp = options.mcp === false ? undefined : await cliMcpPlugin(cwd, permissions);
  await warnIfUnsandboxable(options.sandbox ?? "workspace-write");
  return [
    builtinTools({
      root: cwd,
      permissions,
      sandbox: sandboxOf(options.sandbox ?? "workspace-write", home),
      ...(options.askUser === true
        ? { tools: ["read", "ls", "glob", "grep", "write", "edit", "bash", "ask_user"] as const }
        : {}),
    }),
    ...(mcp === undefined ? [] : [mcp]),
    context.skillsCatalog({ cwd, home }),
    context.workspaceInstructions({ cwd, home }),
    context.workspaceBaseline({ cwd }),
  ];
}

/**
 * The tools' sandbox: `mode`, hiding — besides the default places and Keelson's home — a sessions
 * directory given with `--store DIR` / `KEELSON_STORE` (its logs hold every session's content;
 * found from outside: only the default one, under Keelson's home, was hidden).
 */
function sandboxOf(mode: SandboxMode, home: string): SandboxMode | SandboxOptions {
  const spec = storeSpec();
  if (mode === "off" || spec === undefined || isPostgresUrl(spec)) return mode;
  return { mode, hidden: [...DEFAULT_HIDDEN_PATHS, home, resolve(spec)] };
}
