import { keelsonHome } from "../home/index.js";
import { CliError } from "./errors.js";
const MUTATING = ["write", "edit", "bash"];
/** Parses `--allow write,bash`; an unknown name is a CliError. */
export function parseAllow(text) {
    if (text === undefined)
        return [];
    const names = text
        .split(",")
        .map((n) => n.trim())
        .filter((n) => n !== "");
    for (const name of names) {
        if (!MUTATING.includes(name))
            throw new CliError(`invalid --allow ${JSON.stringify(name)}: expected a comma list of ${MUTATING.join(", ")}`);
    }
    return names;
}
/** Headless: mutating tools denied unless allowed. */
export function denyUnlessAllowed(allow) {
    return { mode: "deny", allow: new Set(allow) };
}
export async function cliPlugins(cwd, permissions) {
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
//# sourceMappingURL=agent-plugins.js.map