// Public API of the context layer: the session-prefix contributors (skills catalog, workspace
// instructions, workspace baseline) and the pure pieces they are built from. Depends on hooks,
// json, messages, tools, store/home and loop types only.
export { parseFrontmatter } from "./frontmatter.js";
export { isInstructionFileName, readInstructionFile } from "./instruction-files.js";
export { renderInstructions, truncateUtf8 } from "./instructions-render.js";
export { agentCwd, directoriesDown, findProjectRoot } from "./paths.js";
export { escapeReminderClose, escapeXml, reminderContent, systemReminder } from "./reminder.js";
export { renderSkillsCatalog, skillDirectories, skillsCatalog } from "./skills-catalog.js";
export { discoverSkills } from "./skills-discovery.js";
export { ContextError } from "./types.js";
export { describeWorkspace, workspaceBaseline } from "./workspace-baseline.js";
export { collectInstructionFiles, workspaceInstructions } from "./workspace-instructions.js";
//# sourceMappingURL=index.js.map