// Public API of the context layer: the session-prefix contributors (skills catalog, workspace
// instructions, workspace baseline) and the pure pieces they are built from. Depends on hooks,
// json, messages, tools, store/home and loop types only.
export { parseFrontmatter } from "./frontmatter.js";
export { type InstructionFile, isInstructionFileName, readInstructionFile } from "./instruction-files.js";
export { renderInstructions, truncateUtf8 } from "./instructions-render.js";
export { agentCwd, directoriesDown, findProjectRoot } from "./paths.js";
export { escapeReminderClose, escapeXml, reminderContent, systemReminder } from "./reminder.js";
export { renderSkillsCatalog, skillDirectories, skillsCatalog } from "./skills-catalog.js";
export { discoverSkills, type SkillDiscovery } from "./skills-discovery.js";
export type {
  ContextErrorCode,
  Skill,
  SkillsCatalogOptions,
  WorkspaceBaselineOptions,
  WorkspaceInstructionsOptions,
} from "./types.js";
export { ContextError } from "./types.js";
export { describeWorkspace, workspaceBaseline } from "./workspace-baseline.js";
export { collectInstructionFiles, workspaceInstructions } from "./workspace-instructions.js";
