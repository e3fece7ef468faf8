// The plugins every CLI agent runs with (run, resume, chat): the built-in tools over the
// session's cwd behind a permission policy, and the session-prefix contributors (skills catalog,
// AGENTS.md / CLAUDE.md instructions, workspace baseline). Headless commands deny the mutating
// tools (write, edit, bash) unless `--allow` names them; chat asks.
import type { AgentPlugin } from "../loop/index.js";
import type { MutatingToolName, PermissionPolicy } from "../builtin-tools/index.js";
import { keelsonHome } from "../home/index.js";
import { CliError } from "./errors.js";

const MUTATING: readonly MutatingToolName[] = ["write", "edit", "bash"];

/** Parses `--allow write,bash`; an unknown name is a CliError. */
export function parseAllow(text: string | undefined): MutatingToolName[] {
  if (text === undefined) return [];
  const names = text
    .split(",")
    .map((n) => n.trim())
    .filter((n) => n !== "");
  for (const name of names) {
    if (!(MUTATING as readonly string[]).includes(name))
      throw new CliError(`invalid --allow ${JSON.stringify(name)}: expected a comma list of ${MUTATING.join(", ")}`);
  }
  return names as MutatingToolName[];
}

/** Headless: mutating tools denied unless allowed. */
export function denyUnlessAllowed(allow: readonly MutatingToolName[]): PermissionPolicy {
  return { mode: "deny", allow: new Set(allow) };
}

export async function cliPlugins(cwd: string, permissions: PermissionPolicy): Promise<AgentPlugin[]> {
  const [{ builtinTools }, context] = await Promise.all([
    import("../builtin-tools/index.js"),
    import("../context/index.js"),
  ]);
  const home = keelsonHome();
  return [
    builtinTools({ root: cwd, permissions }),
    context.skillsCatalog({ cwd, home }),
    context.workspaceInstructions({ cwd, home }),
    context.workspaceBaseline({ cwd }),
  ];
}
