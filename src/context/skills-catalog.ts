// skillsCatalog: the session-prefix contributor that lists the available skills (one user-role
// `<system-reminder>`, `name: description` per skill, nothing else) and the `skill` tool that
// loads one skill's body on demand. Discovery runs at composition time, once per loop instance;
// the tool answers from that same discovery, so the catalog and the tool never disagree.
import { isAbsolute, join, resolve } from "node:path";
import { type AgentPlugin, namedPlugin } from "../loop/index.js";
import type { UserMessage } from "../messages/index.js";
import { keelsonHome } from "../home/index.js";
import { defineTool, jsonSchema, type ToolDefinition } from "../tools/index.js";
import { agentCwd, findProjectRoot } from "./paths.js";
import { escapeXml, systemReminder } from "./reminder.js";
import { discoverSkills } from "./skills-discovery.js";
import { positiveInteger, type Skill, type SkillsCatalogOptions } from "./types.js";

const CATALOG_HEADING = "Skills available (use the skill tool to load one):";

/** The skill directories in precedence order: project `.keelson/skills`, project `.agents/skills`, `dirs`, `<home>/skills`. */
export function skillDirectories(
  projectRoot: string,
  cwd: string,
  options: Pick<SkillsCatalogOptions, "dirs" | "home"> = {},
): string[] {
  const configured = (options.dirs ?? []).map((dir) => (isAbsolute(dir) ? dir : resolve(cwd, dir)));
  const dirs = [
    join(projectRoot, ".keelson", "skills"),
    join(projectRoot, ".agents", "skills"),
    ...configured,
    join(options.home ?? keelsonHome(), "skills"),
  ];
  return [...new Set(dirs)];
}

/**
 * The catalog message for `skills` (already sorted by name): descriptions whitespace-collapsed,
 * capped at `maxDescription` code points ("…" included), then XML-escaped.
 */
export function renderSkillsCatalog(skills: readonly Skill[], maxDescription = 500): UserMessage {
  const lines = skills.map(
    (skill) => `- ${skill.name}: ${escapeXml(cap(skill.description.replace(/\s+/g, " ").trim(), maxDescription))}`,
  );
  return systemReminder([CATALOG_HEADING, ...lines].join("\n"));
}

function cap(text: string, max: number): string {
  const chars = Array.from(text); // code points: never split a surrogate pair
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join("")}…`;
}

/** The prefix contributor and `skill` tool; see README.md. Registers the tool at load time. */
export function skillsCatalog(options: SkillsCatalogOptions = {}): AgentPlugin {
  const maxDescription = positiveInteger(options.maxDescription, 500, "maxDescription");
  return namedPlugin("skillsCatalog", (host) => {
    const { agent } = host;
    let current: ReadonlyMap<string, Skill> | undefined;
    const discover = async (): Promise<readonly Skill[]> => {
      const cwd = agentCwd(agent, options.cwd);
      const result = await discoverSkills(skillDirectories(await findProjectRoot(cwd), cwd, options));
      for (const problem of result.problems)
        agent.hooks.emit("agent/error", { agent, error: problem, where: "skills" });
      current = new Map(result.skills.map((skill) => [skill.name, skill]));
      return result.skills;
    };
    host.onDispose(
      agent.tools.register(skillTool(async () => current ?? new Map((await discover()).map((s) => [s.name, s])))),
    );
    host.on("agent/session-prefix", async (_payload, next) => {
      const skills = await discover();
      if (skills.length === 0) return next();
      return [renderSkillsCatalog(skills, maxDescription), ...(await next())];
    });
    return undefined;
  });
}

function skillTool(skills: () => Promise<ReadonlyMap<string, Skill>>): ToolDefinition {
  return defineTool({
    name: "skill",
    readOnly: true,
    description:
      "Loads a skill by name and returns its instructions. The available skills are listed in the skills reminder.",
    input: jsonSchema<{ name: string }>({
      type: "object",
      properties: { name: { type: "string", description: "The skill's name, as listed in the skills reminder." } },
      required: ["name"],
    }),
    execute: async ({ name }) => {
      const known = await skills();
      const skill = known.get(name);
      if (skill !== undefined)
        return skill.body.trim() === "" ? `The skill ${name} has no instructions beyond its description.` : skill.body;
      const names = [...known.keys()].join(", ") || "none";
      return {
        content: [{ type: "text", text: `Unknown skill ${JSON.stringify(name)}. Known skills: ${names}.` }],
        isError: true,
      };
    },
  });
}
