// The built-in tools for headless turns: every built-in tool over the session's cwd, with the
// mutating ones (write, edit, bash) denied unless `--allow` names them.
import type { AgentPlugin } from "../loop/index.js";
import type { MutatingToolName } from "../tools/index.js";
import { CliError } from "./errors.js";

const MUTATING: readonly MutatingToolName[] = ["write", "edit", "bash"];

/** Parses `--allow write,bash`; an unknown name is a CliError. */
export function parseAllow(text: string | undefined): MutatingToolName[] {
  if (text === undefined) return [];
  const names = text.split(",").map((n) => n.trim()).filter((n) => n !== "");
  for (const name of names) {
    if (!(MUTATING as readonly string[]).includes(name)) throw new CliError(`invalid --allow ${JSON.stringify(name)}: expected a comma list of ${MUTATING.join(", ")}`);
  }
  return names as MutatingToolName[];
}

export async function builtinToolsPlugin(root: string, allow: readonly MutatingToolName[]): Promise<AgentPlugin> {
  const { builtinTools } = await import("../tools/index.js");
  return builtinTools({ root, permissions: { mode: "deny", allow: new Set(allow) } });
}
