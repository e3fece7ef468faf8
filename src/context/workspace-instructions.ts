// workspaceInstructions: the session-prefix contributor for AGENTS.md (CLAUDE.md as a per-
// directory fallback) — `$KEELSON_HOME` first, then the project root down to the cwd, one
// `<system-reminder>` under a byte budget — plus the mid-session channel: a `tools/post-execute`
// listener that announces instruction files a tool call reaches (or changes) as durable
// additionalContext, because the prefix is frozen for the instance and must stay so.
import { stat } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import type { JsonObject, JsonValue } from "../json/index.js";
import { type Agent, type AgentPlugin, namedPlugin } from "../loop/index.js";
import { keelsonHome } from "../home/index.js";
import type { PostExecuteDecision, ToolInvocation } from "../tools/index.js";
import { type InstructionFile, isInstructionFileName, readInstructionFile } from "./instruction-files.js";
import { renderInstructions } from "./instructions-render.js";
import { agentCwd, directoriesDown, findProjectRoot, isWithin } from "./paths.js";
import { reminderContent, systemReminder } from "./reminder.js";
import { ContextError, positiveInteger, type WorkspaceInstructionsOptions } from "./types.js";

/** The tool arguments read as paths (relative ones resolve against the agent's cwd). */
const PATH_ARGUMENTS = ["path", "file_path", "file"] as const;

/** What this instance's model has seen of each instruction file: its content, or null for a refused one. */
interface InstanceView {
  readonly cwd: string;
  readonly root: string;
  readonly seen: Map<string, string | null>;
}

/** The instruction files for `cwd`, broadest first: `<home>`, then the project root down to `cwd`. */
export async function collectInstructionFiles(
  cwd: string,
  home: string,
  maxFileBytes: number,
): Promise<{ root: string; files: InstructionFile[] }> {
  const root = await findProjectRoot(cwd);
  const dirs = [...new Set([resolve(home), ...directoriesDown(root, cwd)])];
  const files: InstructionFile[] = [];
  for (const dir of dirs) {
    const file = await readInstructionFile(dir, maxFileBytes);
    if (file !== undefined) files.push(file);
  }
  return { root, files };
}

export function workspaceInstructions(options: WorkspaceInstructionsOptions = {}): AgentPlugin {
  const budgetBytes = positiveInteger(options.budgetBytes, 16_384, "budgetBytes");
  const maxFileBytes = positiveInteger(options.maxFileBytes, 65_536, "maxFileBytes");
  return namedPlugin("workspaceInstructions", (host) => {
    const { agent } = host;
    let view: InstanceView | undefined;
    host.on("agent/session-prefix", async (_payload, next) => {
      const cwd = agentCwd(agent, options.cwd);
      const { root, files } = await collectInstructionFiles(cwd, options.home ?? keelsonHome(), maxFileBytes);
      // Everything the prefix considered counts as seen — dropped and refused files included —
      // so reaching a directory mid-session does not re-announce what the budget left out.
      view = { cwd, root, seen: new Map(files.map((f) => [f.path, f.status === "ok" ? f.content : null])) };
      const body = renderInstructions("Instructions from", files, budgetBytes);
      return body === undefined ? next() : [systemReminder(body), ...(await next())];
    });
    host.on("tools/post-execute", async ({ call }, next) => {
      const decision = await next();
      if (decision.action !== "accept" || view === undefined) return decision;
      try {
        const body = renderInstructions(
          "Updated instructions from",
          await instructionUpdates(view, call, maxFileBytes),
          budgetBytes,
        );
        return body === undefined ? decision : withContext(decision, reminderContent(body));
      } catch (error) {
        reportUpdateFailure(agent, call, error); // a failed announcement must not fail the tool call
        return decision;
      }
    });
    return undefined;
  });
}

function withContext(
  decision: PostExecuteDecision & { action: "accept" },
  extra: NonNullable<PostExecuteDecision["additionalContext"]>,
): PostExecuteDecision {
  return { ...decision, additionalContext: [...(decision.additionalContext ?? []), ...extra] };
}

function reportUpdateFailure(agent: Agent, call: ToolInvocation, error: unknown): void {
  const failure = new ContextError(
    "instructions-update",
    `could not check instruction files after tool call ${call.callId}: ${String(error)}`,
    { cause: error },
  );
  agent.hooks.emit("agent/error", { agent, error: failure, where: "instructions" });
}

function pathArguments(args: JsonValue | undefined): string[] {
  if (typeof args !== "object" || args === null || Array.isArray(args)) return [];
  const object = args as JsonObject;
  return PATH_ARGUMENTS.map((key) => object[key]).filter(
    (value): value is string => typeof value === "string" && value !== "",
  );
}

/**
 * The instruction files a call reaches that the model has not seen, broadest first: for each
 * path argument inside the project, every directory from the root down to it (the path itself
 * when it is a directory). An instruction file named directly is re-read after the tool ran and
 * announced again when its content differs from what the model last saw.
 */
async function instructionUpdates(
  view: InstanceView,
  call: ToolInvocation,
  maxFileBytes: number,
): Promise<InstructionFile[]> {
  const updates: InstructionFile[] = [];
  for (const raw of pathArguments(call.arguments)) {
    const target = resolve(view.cwd, raw);
    if (!isWithin(view.root, target)) continue;
    const named = isInstructionFileName(target);
    const dir = !named && (await isDirectory(target)) ? target : dirname(target);
    for (const d of directoriesDown(view.root, dir)) {
      const file = await readInstructionFile(d, maxFileBytes);
      if (file === undefined) continue;
      const content = file.status === "ok" ? file.content : null;
      const changed = named && file.path === target && view.seen.get(file.path) !== content;
      if (view.seen.has(file.path) && !changed) continue;
      view.seen.set(file.path, content);
      updates.push(file);
    }
  }
  return updates;
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}
