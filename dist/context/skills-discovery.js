import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { parseFrontmatter } from "./frontmatter.js";
import { errorCode } from "./paths.js";
import { ContextError } from "./types.js";
const SKILL_NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const MAX_NAME = 64;
/** Discovers the skills of `dirs` (highest precedence first). Never throws. */
export async function discoverSkills(dirs) {
    const found = new Map();
    const problems = [];
    for (const dir of dirs) {
        for (const folder of await skillFolders(dir, problems)) {
            if (found.has(folder))
                continue; // shadowed by a higher-precedence directory
            const skill = await loadSkill(join(dir, folder), folder, problems);
            if (skill !== undefined)
                found.set(skill.name, skill);
        }
    }
    const skills = [...found.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return { skills, problems };
}
async function skillFolders(dir, problems) {
    let entries;
    try {
        entries = await readdir(dir, { withFileTypes: true });
    }
    catch (error) {
        const code = errorCode(error);
        if (code !== "ENOENT" && code !== "ENOTDIR")
            problems.push(new ContextError("unreadable-skill", `cannot list skill directory ${dir}: ${code ?? String(error)}`, {
                cause: error,
            }));
        return [];
    }
    const folders = [];
    for (const entry of entries) {
        if (entry.name.startsWith("."))
            continue;
        if (entry.isDirectory() || (entry.isSymbolicLink() && (await isDirectory(join(dir, entry.name)))))
            folders.push(entry.name);
    }
    return folders.sort();
}
async function isDirectory(path) {
    try {
        return (await stat(path)).isDirectory();
    }
    catch {
        return false;
    }
}
/** Reads and validates one skill folder; a folder without SKILL.md is not a skill (no problem). */
async function loadSkill(folderPath, folder, problems) {
    const path = join(folderPath, "SKILL.md");
    let text;
    try {
        text = await readFile(path, "utf8");
    }
    catch (error) {
        const code = errorCode(error);
        if (code !== "ENOENT")
            problems.push(new ContextError("unreadable-skill", `cannot read skill ${path}: ${code ?? String(error)}`, { cause: error }));
        return undefined;
    }
    const invalid = (why) => {
        problems.push(new ContextError("invalid-skill", `skill ${path} skipped: ${why}`));
        return undefined;
    };
    const parsed = parseFrontmatter(text);
    if (!parsed.ok)
        return invalid(parsed.problem);
    const data = parsed.data;
    if (typeof data !== "object" || data === null || Array.isArray(data))
        return invalid("its frontmatter is not a mapping with `name` and `description`");
    const { name, description } = data;
    if (typeof name !== "string")
        return invalid("its frontmatter has no string `name`");
    if (!SKILL_NAME.test(name) || name.length > MAX_NAME)
        return invalid(`name ${JSON.stringify(name)} is not lowercase kebab-case (a-z, 0-9, single hyphens, at most ${MAX_NAME} chars)`);
    if (name !== folder)
        return invalid(`name ${JSON.stringify(name)} does not match its folder ${JSON.stringify(folder)}`);
    if (typeof description !== "string" || description.trim() === "")
        return invalid("its frontmatter has no non-empty string `description`");
    return { name, description, body: parsed.body, path };
}
//# sourceMappingURL=skills-discovery.js.map