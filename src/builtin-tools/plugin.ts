// builtinTools: the plugin that gives an agent the built-in tools over one workspace and gates the
// mutating ones with a permission policy — as approvals: they `needsApproval` until the policy
// allows them, and the policy answers on `approval/ask`. Unloading removes the tools and the gate.
import { resolve } from "node:path";
import type { AgentPlugin } from "../loop/index.js";
import type { ToolDefinition } from "../tools/index.js";
import { askUserTool } from "./ask-user.js";
import { type BashToolOptions, bashTool, killGraceMs } from "./bash.js";
import { editTool } from "./edit.js";
import { globTool } from "./glob.js";
import { grepTool } from "./grep.js";
import { lsTool } from "./ls.js";
import { permissionGate } from "./permissions.js";
import { readTool } from "./read.js";
import { sandboxOptions } from "../sandbox/index.js";
import {
  BUILTIN_TOOL_NAMES,
  type BuiltinToolName,
  type BuiltinToolOptions,
  type BuiltinToolsOptions,
  MUTATING_TOOL_NAMES,
} from "./types.js";
import { Workspace } from "./workspace.js";
import { writeTool } from "./write.js";

const FACTORIES: Readonly<Record<BuiltinToolName, (options: BuiltinToolOptions) => ToolDefinition>> = {
  read: readTool as (options: BuiltinToolOptions) => ToolDefinition,
  ls: lsTool as (options: BuiltinToolOptions) => ToolDefinition,
  glob: globTool as (options: BuiltinToolOptions) => ToolDefinition,
  grep: grepTool as (options: BuiltinToolOptions) => ToolDefinition,
  write: writeTool as (options: BuiltinToolOptions) => ToolDefinition,
  edit: editTool as (options: BuiltinToolOptions) => ToolDefinition,
  bash: bashTool as (options: BuiltinToolOptions) => ToolDefinition,
  ask_user: askUserTool as () => ToolDefinition,
};

/** The built-in tools named in `names` (default all) over `workspace`; `bash` also reads its own options. */
export function builtinToolDefinitions(
  options: BashToolOptions,
  names: readonly BuiltinToolName[] = BUILTIN_TOOL_NAMES,
): ToolDefinition[] {
  return [...new Set(names)].map((name) => FACTORIES[name](options));
}

/** See src/tools/README.md. The permission policy defaults to `{ mode: 'deny' }`. */
export function builtinTools(options: BuiltinToolsOptions = {}): AgentPlugin {
  const names = options.tools ?? BUILTIN_TOOL_NAMES;
  for (const name of names)
    if (!(name in FACTORIES))
      throw new TypeError(
        `builtinTools: unknown tool ${JSON.stringify(name)}; known: ${BUILTIN_TOOL_NAMES.join(", ")}`,
      );
  killGraceMs(options.killGraceMs);
  // The file tools hide what bash's sandbox hides: the default list, plus the policy's own.
  const { hidden } = sandboxOptions(options.sandbox, "builtinTools sandbox");
  return (host) => {
    const root = resolve(options.root ?? host.agent.session.header.cwd ?? process.cwd());
    const workspace = new Workspace({
      root,
      ...(options.allow === undefined ? {} : { allow: options.allow }),
      ...(hidden === undefined ? {} : { hidden }),
    });
    const tools = builtinToolDefinitions(
      {
        workspace,
        ...(options.outputCap === undefined ? {} : { outputCap: options.outputCap }),
        ...(options.env === undefined ? {} : { env: options.env }),
        ...(options.loginShell === undefined ? {} : { loginShell: options.loginShell }),
        ...(options.killGraceMs === undefined ? {} : { killGraceMs: options.killGraceMs }),
        ...(options.sandbox === undefined ? {} : { sandbox: options.sandbox }),
      },
      names,
    );
    const gated = new Set<string>(MUTATING_TOOL_NAMES.filter((name) => names.includes(name)));
    const gate = permissionGate(options.permissions ?? { mode: "deny" }, gated);
    for (const tool of tools) {
      const definition = gated.has(tool.name) ? { ...tool, needsApproval: gate.needsApproval(tool.name) } : tool;
      host.onDispose(host.agent.tools.register(definition));
    }
    host.on("approval/ask", gate.ask);
    return undefined;
  };
}
