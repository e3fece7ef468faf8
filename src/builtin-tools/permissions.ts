// The permission policy for mutating built-in tools (and MCP tools), as approvals (#23 §1: one
// mechanism, no second path). A gated tool `needsApproval` until the policy allows it (mode
// `allow`, `--allow`, or an earlier `always`); the gate's `approval/ask` listener is the live
// decider for its tools: deny mode denies naming the flag, ask mode asks the person, and ask mode
// without a way to ask answers nothing — the turn pauses (`awaiting-approval`) for
// `agent.decide`. Every answer is a logged `approval/decision` (`by`: `policy` or `user`).
// `always` answers are remembered in the gate's closure, i.e. for the life of the agent that
// loaded it. What the person is asked about is the whole call, never a cut: a command cut for
// display once hid a `; touch …` tail that ran after `y`. A call too long to show is denied
// without asking.
import { errorMessage } from "../errors/index.js";
import type { JsonObject, JsonValue } from "../json/index.js";
import type { ApprovalAskPayload, ApprovalDecision } from "../loop/index.js";
import type { MutatingToolName, PermissionAnswer, PermissionPolicy } from "./types.js";
import { MUTATING_TOOL_NAMES } from "./types.js";

/** An `approval/ask` listener. */
export type ApprovalAskListener = (
  payload: ApprovalAskPayload,
  next: () => Promise<ApprovalDecision | undefined>,
) => Promise<ApprovalDecision | undefined>;

/** The policy as approvals: what gated tools declare, and the live decider for them. */
export interface PermissionGate {
  /** The `needsApproval` of the gated tool `tool`: false once the policy allows it, else why not. */
  needsApproval(tool: string): () => false | string;
  /** The live decider for the gated tools (register on `approval/ask`); other tools go to `next()`. */
  readonly ask: ApprovalAskListener;
}

/** Longest summary (after escaping) put to the person; a longer call is denied unasked. */
export const MAX_SUMMARY_CHARS = 10_000;

/**
 * The gate enforcing `policy` on the tools named in `gated` (default: write, edit, bash; read at
 * each call, so a caller may add names later — MCP tools). A throwing `ask` denies, naming the
 * failure. `describe` makes the summary the person is asked about (default `summarize`, the
 * built-ins'; other tools pass their own, already `showable`).
 */
export function permissionGate(
  policy: PermissionPolicy,
  gated: ReadonlySet<string> = new Set(MUTATING_TOOL_NAMES),
  describe: (tool: string, args: JsonValue | undefined) => string = (tool, args) =>
    summarize(tool as MutatingToolName, args),
): PermissionGate {
  const always = new Set<string>(policy.allow ?? []);
  const allowed = (tool: string): boolean => policy.mode === "allow" || always.has(tool);
  const why = (tool: string): string =>
    policy.mode === "deny"
      ? `${tool} is not permitted in this session (permission mode: deny)`
      : `${tool} needs the user's permission (permission mode: ask)`;
  return {
    needsApproval: (tool) => () => (allowed(tool) ? false : why(tool)),
    ask: async ({ request }, next) => {
      const tool = request.tool;
      if (!gated.has(tool) || allowed(tool)) return next();
      if (policy.mode === "deny")
        return deny(
          "policy",
          `${tool} is not permitted in this session (permission mode: deny). The user can allow it by running with --allow ${tool} (e.g. --allow write,edit,bash).`,
        );
      if (policy.ask === undefined) return next(); // nobody to ask now: the turn pauses for agent.decide
      const summary = describe(tool, parsed(request.arguments));
      if (summary.length > MAX_SUMMARY_CHARS)
        return deny(
          "policy",
          `this ${tool} call is too long to show the user in full for approval (${summary.length} characters, the limit is ${MAX_SUMMARY_CHARS}), so they were not asked; split it into smaller calls.`,
        );
      let answer: PermissionAnswer;
      try {
        answer = await policy.ask({ tool, summary });
      } catch (error) {
        return deny("policy", `asking the user for permission to run ${tool} failed: ${errorMessage(error)}`);
      }
      if (answer === "always") always.add(tool);
      if (answer === "yes" || answer === "always") return { approve: true, by: "user" };
      return deny("user", `the user declined to let ${tool} run this time`);
    },
  };
}

const deny = (by: string, note: string): ApprovalDecision => ({ approve: false, by, note });

/** The call's arguments as JSON (undefined when they are not valid JSON). */
function parsed(args: string): JsonValue | undefined {
  try {
    return JSON.parse(args) as JsonValue;
  } catch {
    return undefined;
  }
}

/**
 * What the person is asked about, in full, without the tool's name (the request carries it):
 * `<path> (N characters)` for write, `<path>` for edit, the command for bash. Control and
 * invisible characters are escaped (`\x1b`, `\u202e`) so the terminal shows them instead of
 * obeying them; a command keeps its newlines (it may span lines), a path does not.
 */
export function summarize(tool: MutatingToolName, args: JsonValue | undefined): string {
  const field = (key: string): string | undefined => {
    const value =
      typeof args === "object" && args !== null && !Array.isArray(args) ? (args as JsonObject)[key] : undefined;
    return typeof value === "string" ? value : undefined;
  };
  if (tool === "bash") return showable(field("command") ?? "(no command)", true);
  const path = showable(field("path") ?? "(no path)", false);
  return tool === "write" ? `${path} (${field("content")?.length ?? 0} characters)` : path;
}

/**
 * Control characters (C0 but tab and, when `keepNewlines`, newline; DEL; C1), format characters
 * (bidi overrides, zero-width), line/paragraph separators and lone surrogates, as `\xHH` or
 * `\u{H…}` escapes. `keepJoiners` keeps a zero-width joiner or non-joiner (U+200D, U+200C) that
 * stands between two characters outside ASCII, where prose needs it (an emoji sequence, Persian, an
 * Indic script) and a terminal only shapes glyphs by it; one next to ASCII (`.bash\u200drc`, which
 * shows as `.bashrc`) or at an end is escaped, as a permission prompt escapes every one.
 */
export function showable(text: string, keepNewlines: boolean, keepJoiners = false): string {
  return text.replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu, (char, at: number) => {
    if (char === "\t" || (keepNewlines && char === "\n")) return char;
    if (keepJoiners && (char === "\u200d" || char === "\u200c") && joins(text, at)) return char;
    const code = char.codePointAt(0)!;
    return code < 0x100 ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u{${code.toString(16)}}`;
  });
}

/** Whether the joiner at `at` stands between two characters outside ASCII (neither of them a space). */
function joins(text: string, at: number): boolean {
  if (at === 0) return false;
  const low = text.charCodeAt(at - 1);
  const before = text.codePointAt(low >= 0xdc00 && low <= 0xdfff && at >= 2 ? at - 2 : at - 1);
  return outsideAscii(before) && outsideAscii(text.codePointAt(at + 1));
}

const outsideAscii = (code: number | undefined): boolean =>
  code !== undefined && code > 0x7f && !/\s/u.test(String.fromCodePoint(code));
