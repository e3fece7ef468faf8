// Skill discovery: `<dir>/<name>/SKILL.md` in each directory, in precedence order; the first
// skill of a name wins and later ones are shadowed. Folders are visited in code-unit order, so
// discovery never depends on readdir order. Invalid skills are skipped and returned as problems.
import type { Dirent } from "node:fs";
import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { parseFrontmatter } from "./frontmatter.js";
import { errorCode } from "./paths.js";
import { ContextError, type Skill } from "./types.js";

const SKILL_NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const MAX_NAME = 64;

export interface SkillDiscovery {
  /** Sorted by name (code-unit order). */
  readonly skills: readonly Skill[];
  /** One `ContextError` per skipped skill or unreadable directory, in discovery order. */
  readonly problems: readonly ContextError[];
}

/** Discovers the skills of `dirs` (highest precedence first). Never throws. */
export async function discoverSkills(dirs: readonly string[]): Promise<SkillDiscovery> {
  const found = new Map<string, Skill>();
  const problems: ContextError[] = [];
  for (const dir of dirs) {
    for (const folder of await skillFolders(dir, problems)) {
      if (found.has(folder)) continue; // shadowed by a higher-precedence directory
      const skill = await loadSkill(join(dir, folder), folder, problems);
      if (skill !== undefined) found.set(skill.name, skill);
    }
  }
  const skills = [...found.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { skills, problems };
}

async function skillFolders(dir: string, problems: ContextError[]): Promise<string[]> {
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    const code = errorCode(error);
    if (code !== "ENOENT" && code !== "ENOTDIR")
      problems.push(
        new ContextError("unreadable-skill", `cannot list skill directory ${dir}: ${code ?? String(error)}`, {
          cause: error,
        }),
      );
    return [];
  }
  const folders: string[] = [];
  for (const entry of entries) {
    if (entry.name.startsWith(".")) continue;
    if (entry.isDirectory() || (entry.isSymbolicLink() && (await isDirectory(join(dir, entry.name)))))
      folders.push(entry.name);
  }
  return folders.sort();
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

/** Reads and validates one skill folder; a folder without SKILL.md is not a skill (no problem). */
async function loadSkill(folderPath: string, folder: string, problems: ContextError[]): Promise<Skill | undefined> {
  const path = join(folderPath, "SKILL.md");
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    const code = errorCode(error);
    if (code !== "ENOENT")
      problems.push(
        new ContextError("unreadable-skill", `cannot read skill ${path}: ${code ?? String(error)}`, { cause: error }),
      );
    return undefined;
  }
  const invalid = (why: string): undefined => {
    problems.push(new ContextError("invalid-skill", `skill ${path} skipped: ${why}`));
    return undefined;
  };
  const parsed = parseFrontmatter(text);
  if (!parsed.ok) return invalid(parsed.problem);
  const data = parsed.data;
  if (typeof data !== "object" || data === null || Array.isArray(data))
    return invalid("its frontmatter is not a mapping with `name` and `description`");
  const { name, description } = data as { name?: unknown; description?: unknown };
  if (typeof name !== "string") return invalid("its frontmatter has no string `name`");
  if (!SKILL_NAME.test(name) || name.length > MAX_NAME)
    return invalid(
      `name ${JSON.stringify(name)} is not lowercase kebab-case (a-z, 0-9, single hyphens, at most ${MAX_NAME} chars)`,
    );
  if (name !== folder)
    return invalid(`name ${JSON.stringify(name)} does not match its folder ${JSON.stringify(folder)}`);
  if (typeof description !== "string" || description.trim() === "")
    return invalid("its frontmatter has no non-empty string `description`");
  return { name, description, body: parsed.body, path };
}
