// builtinTools: the plugin that gives an agent the built-in tools over one workspace and gates the
// mutating ones with a permission policy. Unloading removes the tools and the gate.
import { resolve } from "node:path";
import { bashTool } from "./bash.js";
import { editTool } from "./edit.js";
import { globTool } from "./glob.js";
import { grepTool } from "./grep.js";
import { lsTool } from "./ls.js";
import { permissionGate } from "./permissions.js";
import { readTool } from "./read.js";
import { BUILTIN_TOOL_NAMES, MUTATING_TOOL_NAMES, } from "./types.js";
import { Workspace } from "./workspace.js";
import { writeTool } from "./write.js";
const FACTORIES = {
    read: readTool,
    ls: lsTool,
    glob: globTool,
    grep: grepTool,
    write: writeTool,
    edit: editTool,
    bash: bashTool,
};
/** The built-in tools named in `names` (default all) over `workspace`. */
export function builtinToolDefinitions(options, names = BUILTIN_TOOL_NAMES) {
    return [...new Set(names)].map((name) => FACTORIES[name](options));
}
/** See src/tools/README.md. The permission policy defaults to `{ mode: 'deny' }`. */
export function builtinTools(options = {}) {
    const names = options.tools ?? BUILTIN_TOOL_NAMES;
    for (const name of names)
        if (!(name in FACTORIES))
            throw new TypeError(`builtinTools: unknown tool ${JSON.stringify(name)}; known: ${BUILTIN_TOOL_NAMES.join(", ")}`);
    return (host) => {
        const root = resolve(options.root ?? host.agent.session.header.cwd ?? process.cwd());
        const workspace = new Workspace({ root, ...(options.allow === undefined ? {} : { allow: options.allow }) });
        const tools = builtinToolDefinitions({ workspace, ...(options.outputCap === undefined ? {} : { outputCap: options.outputCap }) }, names);
        for (const tool of tools)
            host.onDispose(host.agent.tools.register(tool));
        const gated = new Set(MUTATING_TOOL_NAMES.filter((name) => names.includes(name)));
        host.on("tools/pre-execute", permissionGate(options.permissions ?? { mode: "deny" }, gated));
        return undefined;
    };
}
//# sourceMappingURL=plugin.js.map