// Bounds on what validation issues may cost: an answer of a megabyte can fail in a hundred
// thousand places, and every line shown to the model is paid for on every later request.
// Issues are cut to MAX_ISSUES lines of at most MAX_ISSUE_CHARS each, with a closing line that
// says how many were left out.

/** Issues kept (on the outcome, the error, and the repair prompt). */
export const MAX_ISSUES = 20;
/** Characters per issue line (an issue quoting a huge value is cut with "…"). */
export const MAX_ISSUE_CHARS = 300;

/** One line, at most MAX_ISSUE_CHARS characters (code points), newlines flattened. */
export function boundLine(line: string): string {
  const flat = line.replace(/\s*\n\s*/g, " ");
  const chars = [...flat];
  return chars.length <= MAX_ISSUE_CHARS ? flat : `${chars.slice(0, MAX_ISSUE_CHARS - 1).join("")}…`;
}

/** At most MAX_ISSUES bounded lines; when some were dropped, the last line says how many. */
export function boundIssues(issues: readonly string[]): readonly string[] {
  if (issues.length <= MAX_ISSUES) return Object.freeze(issues.map(boundLine));
  const kept = issues.slice(0, MAX_ISSUES - 1).map(boundLine);
  return Object.freeze([...kept, `… and ${issues.length - kept.length} more issues`]);
}
