// approvalNeed: whether one call needs a person's approval before it runs, from its tool's
// `needsApproval`. The arguments are parsed and validated the way the pipeline will (so the
// function sees what `execute` would); a call whose tool is unknown or whose arguments do not
// parse or validate needs none — it becomes an error result without running anything.
import type { ToolRegistry } from "./registry.js";
import type { ApprovalContext } from "./types.js";

/** Not needed, or needed with the reason a person is shown. */
export type ApprovalNeed = { readonly needed: false } | { readonly needed: true; readonly reason: string };

const NOT_NEEDED: ApprovalNeed = Object.freeze({ needed: false });

/** Evaluates the tool's `needsApproval` for one call (never throws: a throwing function means needed). */
export async function approvalNeed(
  registry: ToolRegistry,
  rawArguments: string,
  context: ApprovalContext,
): Promise<ApprovalNeed> {
  const registered = registry.entry(context.name);
  const rule = registered?.tool.needsApproval;
  if (registered === undefined || rule === undefined || rule === false) return NOT_NEEDED;
  const fixed = `${context.name} needs approval before it runs`;
  let args: unknown;
  try {
    args = JSON.parse(rawArguments);
  } catch {
    return NOT_NEEDED;
  }
  const parsed = await registered.input.validate(args as never);
  if (!parsed.ok) return NOT_NEEDED;
  if (rule === true) return { needed: true, reason: fixed };
  try {
    const answer = await rule(parsed.value as never, context);
    if (answer === false) return NOT_NEEDED;
    return { needed: true, reason: typeof answer === "string" && answer !== "" ? answer : fixed };
  } catch (error) {
    return {
      needed: true,
      reason: `${fixed} (its needsApproval check failed: ${error instanceof Error ? error.message : String(error)})`,
    };
  }
}
