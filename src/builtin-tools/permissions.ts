// The permission gate for mutating built-in tools, as a `tools/pre-execute` listener. Read-only
// tools and tools it does not gate pass straight through; `always` answers are remembered in the
// listener's closure, i.e. for the life of the agent that loaded it. What the person is asked
// about is the whole call, never a cut: a command cut for display once hid a `; touch …` tail
// that ran after `y`. A call too long to show is denied without asking.
import { errorMessage } from "../errors/index.js";
import type { JsonObject, JsonValue } from "../json/index.js";
import type { PreExecuteDecision, PreExecutePayload } from "../tools/index.js";
import type { MutatingToolName, PermissionAnswer, PermissionPolicy } from "./types.js";
import { MUTATING_TOOL_NAMES } from "./types.js";

export type PreExecuteListener = (
  payload: PreExecutePayload,
  next: () => Promise<PreExecuteDecision>,
) => Promise<PreExecuteDecision>;

/** Longest summary (after escaping) put to the person; a longer call is denied unasked. */
export const MAX_SUMMARY_CHARS = 10_000;

/**
 * A `tools/pre-execute` listener enforcing `policy` on the tools named in `gated` (default:
 * write, edit, bash; read at each call, so a caller may add names later — MCP tools). A throwing
 * `ask` denies, naming the failure. `describe` makes the summary the person is asked about
 * (default `summarize`, the built-ins'; other tools pass their own, already `showable`).
 */
export function permissionGate(
  policy: PermissionPolicy,
  gated: ReadonlySet<string> = new Set(MUTATING_TOOL_NAMES),
  describe: (tool: string, args: JsonValue | undefined) => string = (tool, args) =>
    summarize(tool as MutatingToolName, args),
): PreExecuteListener {
  const always = new Set<string>(policy.allow ?? []);
  return async ({ call }, next) => {
    if (!gated.has(call.name) || policy.mode === "allow" || always.has(call.name)) return next();
    const tool = call.name;
    if (policy.mode === "deny")
      return deny(
        `${tool} is not permitted in this session (permission mode: deny). The user can allow it by running with --allow ${tool} (e.g. --allow write,edit,bash).`,
      );
    if (policy.ask === undefined)
      return deny(
        `${tool} needs the user's permission, and there is no way to ask in this session; run with --allow ${tool} to permit it.`,
      );
    const summary = describe(tool, call.arguments);
    if (summary.length > MAX_SUMMARY_CHARS)
      return deny(
        `this ${tool} call is too long to show the user in full for approval (${summary.length} characters, the limit is ${MAX_SUMMARY_CHARS}), so they were not asked; split it into smaller calls.`,
      );
    let answer: PermissionAnswer;
    try {
      answer = await policy.ask({ tool, summary });
    } catch (error) {
      return deny(`asking the user for permission to run ${tool} failed: ${errorMessage(error)}`);
    }
    if (answer === "always") always.add(tool);
    if (answer === "yes" || answer === "always") return next();
    return deny(`the user declined to let ${tool} run this time`);
  };
}

const deny = (reason: string): PreExecuteDecision => ({ action: "deny", reason });

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
 * `\u{H…}` escapes.
 */
export function showable(text: string, keepNewlines: boolean): string {
  return text.replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu, (char) => {
    if (char === "\t" || (keepNewlines && char === "\n")) return char;
    const code = char.codePointAt(0)!;
    return code < 0x100 ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u{${code.toString(16)}}`;
  });
}
