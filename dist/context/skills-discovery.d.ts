import { ContextError, type Skill } from "./types.js";
export interface SkillDiscovery {
    /** Sorted by name (code-unit order). */
    readonly skills: readonly Skill[];
    /** One `ContextError` per skipped skill or unreadable directory, in discovery order. */
    readonly problems: readonly ContextError[];
}
/** Discovers the skills of `dirs` (highest precedence first). Never throws. */
export declare function discoverSkills(dirs: readonly string[]): Promise<SkillDiscovery>;
