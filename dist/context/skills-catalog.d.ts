import type { AgentPlugin } from "../loop/index.js";
import type { UserMessage } from "../messages/index.js";
import { type Skill, type SkillsCatalogOptions } from "./types.js";
/** The skill directories in precedence order: project `.keelson/skills`, project `.agents/skills`, `dirs`, `<home>/skills`. */
export declare function skillDirectories(projectRoot: string, cwd: string, options?: Pick<SkillsCatalogOptions, "dirs" | "home">): string[];
/**
 * The catalog message for `skills` (already sorted by name): descriptions whitespace-collapsed,
 * capped at `maxDescription` code points ("…" included), then XML-escaped.
 */
export declare function renderSkillsCatalog(skills: readonly Skill[], maxDescription?: number): UserMessage;
/** The prefix contributor and `skill` tool; see README.md. Registers the tool at load time. */
export declare function skillsCatalog(options?: SkillsCatalogOptions): AgentPlugin;
