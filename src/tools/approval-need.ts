// approvalNeed and questionOf: whether one call needs a person's approval before it runs (its
// tool's `needsApproval`), and what it asks a person (its tool's `question`). The arguments are
// parsed and validated the way the pipeline will (so the functions see what `execute` would); a
// call whose tool is unknown or whose arguments do not parse or validate needs no approval and
// asks nothing — it becomes an error result without running anything.
import type { JsonObject } from "../json/index.js";
import type { RegisteredTool, ToolRegistry } from "./registry.js";
import type { ApprovalContext, ToolQuestion } from "./types.js";

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
  const args = await validArgs(registered, rawArguments);
  if (args === undefined) return NOT_NEEDED;
  if (rule === true) return { needed: true, reason: fixed };
  try {
    const answer = await rule(args.value as never, context);
    if (answer === false) return NOT_NEEDED;
    return { needed: true, reason: typeof answer === "string" && answer !== "" ? answer : fixed };
  } catch (error) {
    return {
      needed: true,
      reason: `${fixed} (its needsApproval check failed: ${error instanceof Error ? error.message : String(error)})`,
    };
  }
}

/** The default schema of a question's answer: a string. */
export const TEXT_ANSWER: JsonObject = Object.freeze({ type: "string" });

/**
 * The tool's question for one call, with its schema (default `TEXT_ANSWER`), or undefined. A
 * throwing `question` is rethrown: the loop ends the turn with it (a question it cannot ask).
 */
export async function questionOf(
  registry: ToolRegistry,
  rawArguments: string,
  context: ApprovalContext,
): Promise<Required<ToolQuestion> | undefined> {
  const registered = registry.entry(context.name);
  const ask = registered?.tool.question;
  if (registered === undefined || ask === undefined) return undefined;
  const args = await validArgs(registered, rawArguments);
  if (args === undefined) return undefined;
  const question = await ask(args.value as never, context);
  if (question === undefined) return undefined;
  return { message: String(question.message), schema: question.schema ?? TEXT_ANSWER };
}

/** The validated arguments (`{ value }`), or undefined when they do not parse or validate. */
async function validArgs(registered: RegisteredTool, rawArguments: string): Promise<{ value: unknown } | undefined> {
  let args: unknown;
  try {
    args = JSON.parse(rawArguments);
  } catch {
    return undefined;
  }
  const parsed = await registered.input.validate(args as never);
  return parsed.ok ? { value: parsed.value } : undefined;
}
