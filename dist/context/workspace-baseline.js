import { readdir } from "node:fs/promises";
import { gitDirectory, gitTreeDirty, readGitHead } from "./git-state.js";
import { agentCwd, findProjectRoot } from "./paths.js";
import { systemReminder } from "./reminder.js";
import { positiveInteger } from "./types.js";
/** The baseline text for `cwd` (the reminder's body). */
export async function describeWorkspace(cwd, options = {}) {
    const maxEntries = positiveInteger(options.maxEntries, 40, "maxEntries");
    const root = await findProjectRoot(cwd);
    const lines = [`Working directory: ${cwd}`];
    if (root !== cwd)
        lines.push(`Project root: ${root}`);
    const git = await gitLine(root, options);
    if (git !== undefined)
        lines.push(git);
    lines.push(...(await entryLines(cwd, maxEntries)));
    return lines.join("\n");
}
async function gitLine(root, options) {
    const gitDir = await gitDirectory(root);
    if (gitDir === undefined)
        return undefined;
    const head = await readGitHead(gitDir);
    if (head === undefined)
        return undefined;
    const where = "branch" in head ? `Git branch: ${head.branch}` : `Git: detached HEAD at ${head.detached}`;
    if (options.gitStatus === false)
        return where;
    const dirty = await gitTreeDirty(root, gitDir, positiveInteger(options.gitTimeoutMs, 3_000, "gitTimeoutMs"));
    return dirty === undefined ? where : `${where} (${dirty ? "uncommitted changes" : "clean"})`;
}
/**
 * Top-level entries of `cwd` in code-unit order, directories with a trailing `/`. Dotfiles are
 * left out except git's own (`.gitignore`, `.github/`…; `.git` itself is the git line's job).
 */
async function entryLines(cwd, maxEntries) {
    let entries;
    try {
        entries = await readdir(cwd, { withFileTypes: true });
    }
    catch {
        return [];
    }
    const names = entries
        .filter((e) => !e.name.startsWith(".") || (e.name.startsWith(".git") && e.name !== ".git"))
        .map((e) => printable(e.isDirectory() ? `${e.name}/` : e.name))
        .sort();
    if (names.length === 0)
        return ["Top-level entries: none"];
    const shown = names.slice(0, maxEntries).map((name) => `- ${name}`);
    if (names.length > maxEntries)
        shown.push(`… and ${names.length - maxEntries} more`);
    return ["Top-level entries:", ...shown];
}
/** A file name with control characters (a newline could forge a line) is shown JSON-quoted. */
const printable = (name) => (/\p{Cc}/u.test(name) ? JSON.stringify(name) : name);
export function workspaceBaseline(options = {}) {
    positiveInteger(options.maxEntries, 40, "maxEntries");
    positiveInteger(options.gitTimeoutMs, 3_000, "gitTimeoutMs");
    return (host) => {
        host.on("agent/session-prefix", async (_agent, _seed, _signal, next) => {
            const body = await describeWorkspace(agentCwd(host.agent, options.cwd), options);
            return [systemReminder(body), ...(await next())];
        });
        return undefined;
    };
}
//# sourceMappingURL=workspace-baseline.js.map