// Which session a `keelson approve|deny|respond <session> <id>` answers in, when the session's
// subagents wait too (#27 §1): the pending requests of the session and its descendants
// (`sessionPauses`) that carry that id — the parent's stand-in for a child's pause left out —
// must be exactly one, or `--session <id>` names it. And the subagent tools a resumed parent
// needs to reach its held calls' children: with the app's profile (`--profiles`) its own; else
// the CLI does not know them, so each held call's tool is stood in for by a plain subagent tool
// of that name (the child is continued with the CLI's provider and model, as the parent is).
import { jsonSchema } from "../tools/index.js";
import type { ToolDefinition } from "../tools/index.js";
import type { SessionPauses } from "../store/index.js";
import { CliError } from "./errors.js";

interface Asked {
  readonly path?: readonly string[];
  readonly subagent?: string;
}

/**
 * The session whose request `what` answers among `matches` (the pending requests with that id,
 * from `sessionPauses` of session `own`): undefined for `own` itself, else the subagent's id.
 * `wanted` (`--session`) chooses; several without it is a `CliError`.
 */
export function askingSession<T extends Asked>(
  own: string,
  matches: readonly T[],
  wanted: string | undefined,
  what: string,
): { readonly session: string | undefined; readonly request: T | undefined } {
  const sessionOf = (request: T): string => request.path?.at(-1) ?? own;
  const found =
    wanted === undefined
      ? matches.filter((request) => request.subagent === undefined)
      : matches.filter((request) => sessionOf(request) === wanted);
  if (found.length > 1)
    throw new CliError(
      `${what} waits in several sessions (${found.map(sessionOf).join(", ")}): name one with --session <id>`,
    );
  const request = found[0];
  const at = request === undefined ? (wanted ?? own) : sessionOf(request);
  if (at !== own && request === undefined) throw new CliError(`${what} is not pending in session ${at}`);
  return { session: at === own ? undefined : at, request };
}

/**
 * A stand-in subagent tool for each held call of `pauses` that waits on its child (by the call's
 * tool name) and that `own` (an app profile's tools) has no subagent tool for. A stand-in has no
 * options of its own: the child is continued with the parent's provider and model (the CLI's) and
 * the parent's tools minus subagent tools, its logged system prompt is not restated (its own
 * plugins and prompt are not known), and a structured `output` is not checked.
 */
export async function heldSubagentTools(
  pauses: SessionPauses,
  own: readonly ToolDefinition[] = [],
): Promise<ToolDefinition[]> {
  const { subagentTool, subagentSpecOf } = await import("../loop/index.js");
  const known = new Set(own.filter((tool) => subagentSpecOf(tool) !== undefined).map((tool) => tool.name));
  const names = new Set(
    pauses.approvals
      .filter((a) => a.path === undefined && a.subagent !== undefined && !known.has(a.tool))
      .map((a) => a.tool),
  );
  return [...names].map((name) =>
    subagentTool({
      name,
      description: "A subagent (its held call, continued by keelson).",
      input: jsonSchema<Record<string, unknown>>({ type: "object" }),
    }),
  );
}
