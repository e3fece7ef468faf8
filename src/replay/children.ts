// The child sessions a replayed log names (subagents, #27 §1: a tool result's
// `meta.subagent.session`), each replayed as a session of its own. Its options: what
// `options.children` gives it, else what the replayed parent's subagent tool gives it now — built
// as the loop builds a child's agent (src/loop/subagent-child.ts): the tool's profile or agent
// options over the parent's model and loop settings, `maxSteps` 20 unless said, and only the
// parent's tools, as the parent's definitions (`narrowTools`).
import { errorMessage } from "../errors/index.js";
import { type AgentPlugin, narrowTools, profileAgentOptions } from "../loop/index.js";
import type { SessionStore } from "../store/index.js";
import type { SubagentSource } from "./replay-plugins.js";
import type { ReplayChild, ReplayedChild, ReplayOptions, ReplayReport } from "./types.js";

/** Steps of a child's turn when neither its tool nor its options say (as the loop's default). */
const DEFAULT_MAX_STEPS = 20;

/** Loop settings a child takes from its parent (as the loop hands them down), and the replay's own options. */
const INHERITED = [
  "clock",
  "toolTimeoutMs",
  "cwd",
  "liveTools",
  "recordedTools",
  "countTokens",
  "models",
  "children",
] as const;

export async function replayChild(
  child: ReplayChild,
  source: SubagentSource | undefined,
  options: ReplayOptions,
  store: SessionStore | undefined,
  replay: (store: SessionStore, id: string, options: ReplayOptions) => Promise<ReplayReport>,
): Promise<ReplayedChild> {
  if (store === undefined) return { ...child, skipped: "no store to load it from" };
  let childOptions: ReplayOptions | undefined;
  if (options.children !== undefined) {
    childOptions = options.children(child);
    if (childOptions === undefined) return { ...child, skipped: "`children` gave no options for it" };
  } else if (source !== undefined) childOptions = await fromSubagentTool(child, source, options);
  else
    return { ...child, skipped: "its call's tool is no subagent tool now, and no `children` option gives its options" };
  try {
    return { ...child, report: await replay(store, child.session, childOptions) };
  } catch (error) {
    return { ...child, skipped: `it could not be replayed: ${errorMessage(error)}` };
  }
}

/** The child's options as the parent's subagent tool gives them now. */
async function fromSubagentTool(
  child: ReplayChild,
  source: SubagentSource,
  parent: ReplayOptions,
): Promise<ReplayOptions> {
  const { spec } = source;
  const own =
    spec.profile !== undefined
      ? await profileAgentOptions(spec.profile, { profile: spec.name, sessionId: child.session })
      : { ...spec.agent, model: spec.agent?.model ?? source.model };
  const inherited: Record<string, unknown> = {};
  for (const key of INHERITED) if (parent[key] !== undefined) inherited[key] = parent[key];
  return {
    ...(inherited as Partial<ReplayOptions>),
    ...own,
    maxSteps: spec.maxSteps ?? own.maxSteps ?? DEFAULT_MAX_STEPS,
    plugins: [...(own.plugins ?? []), narrowedTo(source)],
  };
}

/** Last of a child's plugins: only the parent's tools, as the parent's definitions (before each step too). */
function narrowedTo(source: SubagentSource): AgentPlugin {
  return (host) => {
    const narrow = (): void => narrowTools(host.agent.tools, source.parentTools, source.spec.tools);
    narrow();
    host.on("agent/tool-set", narrow);
    return undefined;
  };
}
