// The tools suite's catalogue of hostile calls, one trial each: what a built-in tool is asked
// to do in the hostile workspace (tools-workspace.ts), what it must answer (an error result, a
// plain answer, or either), and what must hold of the files afterwards. The generic checks every
// call gets — bounded time, a live event loop, bounded memory and output, no outside content,
// the outside tree unchanged — are in tools-checks.ts.
import { lstat, open, readFile, stat } from "node:fs/promises";
import { check } from "./violation.js";
import { CATASTROPHIC_GREP_DEADLINE_MS, type ToolAnswer } from "./tools-protocol.js";
import { HUGE_BYTES, type HostileWorkspace, MARK, PATHS, type TextFixture } from "./tools-workspace.js";

export type Expect = "error" | "answer" | "any";

export interface ToolCase {
  readonly name: string;
  /** The outcome group in the suite's counts. */
  readonly group: string;
  readonly tool: string;
  readonly args: Readonly<Record<string, unknown>>;
  readonly expect: Expect;
  /** grep's deadline for the call, when not the child's default (tools-protocol.ts). */
  readonly grepDeadlineMs?: number;
  /** Puts the workspace in the state the case needs. */
  readonly before?: (ws: HostileWorkspace) => Promise<void>;
  /** Checks beyond the generic ones; throws a Violation. */
  readonly check?: (answer: ToolAnswer, ws: HostileWorkspace) => Promise<void>;
}

/** `**a` ten times then `**b`: a backtracking matcher needs ~C(path, 10) steps on a deep path. */
export const CATASTROPHIC_GLOB = `${"**a".repeat(10)}**b`;
export const CATASTROPHIC_REGEX = "^(a+)+$";

const preview = (text: string): string => JSON.stringify(text.length > 200 ? `${text.slice(0, 200)}…` : text);
const FFFD = Buffer.from("\uFFFD", "utf8");

/** Bytes of `original` with the first `from` replaced by `to` (both UTF-8): an edit touches nothing else. */
function replacedOnce(original: Buffer, from: string, to: string): Buffer {
  const needle = Buffer.from(from, "utf8");
  const at = original.indexOf(needle);
  if (at === -1) throw new Error(`fixture bug: ${from} is not in the fixture`);
  return Buffer.concat([original.subarray(0, at), Buffer.from(to, "utf8"), original.subarray(at + needle.length)]);
}

/** Why `now` is not `want`: a U+FFFD substitution, or the first differing byte. */
function byteDifference(now: Buffer, want: Buffer, before: Buffer): string {
  const substituted = now.includes(FFFD) && !before.includes(FFFD);
  let at = 0;
  while (at < now.length && at < want.length && now[at] === want[at]) at++;
  return `${substituted ? "U+FFFD was substituted for bytes the call did not own; " : ""}first difference at byte ${at} (${now.length} bytes, expected ${want.length})`;
}

const FIXTURE_PATH: Record<TextFixture, string> = { binary: PATHS.binary, latin1: PATHS.latin1, bom: PATHS.bom };

/** `edit` of a fixture: refused with the file untouched, or exactly `oldString` → `newString` and nothing else. */
function editCase(fixture: TextFixture, expect: Expect, oldString = MARK, newString = "EDITED"): ToolCase {
  return {
    name: `edit ${oldString === MARK ? "" : `${JSON.stringify(oldString)} in `}a ${fixture} file`,
    group: "encoding",
    tool: "edit",
    args: { path: FIXTURE_PATH[fixture], oldString, newString },
    expect,
    before: (ws) => ws.restore(fixture),
    check: async (answer, ws) => {
      const before = ws.original[fixture];
      const now = await readFile(ws.abs(FIXTURE_PATH[fixture]));
      const want = answer.isError ? before : replacedOnce(before, oldString, newString);
      check(
        now.equals(want),
        `${answer.isError ? "refused the edit but changed the file" : "the edit changed bytes outside the replaced text"}: ${byteDifference(now, want, before)}`,
      );
    },
  };
}

/** `write` over a fixture: refused with the file untouched, or the file is exactly the new content. */
function writeCase(fixture: TextFixture, expect: Expect): ToolCase {
  const content = `written by the tools suite ${MARK}\n`;
  return {
    name: `write over a ${fixture} file`,
    group: "encoding",
    tool: "write",
    args: { path: FIXTURE_PATH[fixture], content },
    expect,
    before: (ws) => ws.restore(fixture),
    check: async (answer, ws) => {
      const before = ws.original[fixture];
      const now = await readFile(ws.abs(FIXTURE_PATH[fixture]));
      const want = answer.isError ? before : Buffer.from(content, "utf8");
      check(
        now.equals(want),
        `${answer.isError ? "refused but changed the file" : "the file is not the written content"}: ${byteDifference(now, want, before)}`,
      );
    },
  };
}

/** The special file at `rel` is still what it was (a write must not replace a FIFO or socket with a file). */
const stillSpecial =
  (rel: string, kind: "fifo" | "socket") =>
  async (_answer: ToolAnswer, ws: HostileWorkspace): Promise<void> => {
    const info = await lstat(ws.abs(rel));
    check(kind === "fifo" ? info.isFIFO() : info.isSocket(), `${rel} is no longer a ${kind}`);
  };

const SPECIAL_TARGETS: readonly { readonly path: string; readonly label: string; readonly kind?: "fifo" | "socket" }[] =
  [
    { path: PATHS.fifo, label: "a FIFO", kind: "fifo" },
    { path: PATHS.socket, label: "a listening unix socket", kind: "socket" },
    { path: "/dev/zero", label: "/dev/zero (an allowed root)" },
    { path: "/dev/null", label: "/dev/null (an allowed root)" },
    { path: "/dev/urandom", label: "/dev/urandom (outside the workspace)" },
  ];

/** Every tool against every special file: an error result, promptly. */
function specialCases(): ToolCase[] {
  return SPECIAL_TARGETS.flatMap(({ path, label, kind }) => {
    const calls: [string, Record<string, unknown>][] = [
      ["read", { path }],
      ["grep", { pattern: "x", path }],
      ["edit", { path, oldString: "x", newString: "y" }],
      ["write", { path, content: "x" }],
      ["glob", { pattern: "*", path }],
      ["ls", { path }],
    ];
    return calls.map(
      ([tool, args]): ToolCase => ({
        name: `${tool} on ${label}`,
        group: "special",
        tool,
        args,
        expect: "error",
        ...(kind === undefined ? {} : { check: stillSpecial(path, kind) }),
      }),
    );
  });
}

function directoryCases(): ToolCase[] {
  const refused = (name: string, tool: string, args: Record<string, unknown>): ToolCase => ({
    name,
    group: "special",
    tool,
    args,
    expect: "error",
  });
  return [
    refused("read on a directory", "read", { path: PATHS.dir }),
    refused("edit on a directory", "edit", { path: `${PATHS.dir}/`, oldString: "x", newString: "y" }),
    refused("write on a directory", "write", { path: PATHS.dir, content: "x" }),
    refused("write below a FIFO", "write", { path: `${PATHS.fifo}/child.txt`, content: "x" }),
  ];
}

function hugeCases(): ToolCase[] {
  const unchanged = async (_answer: ToolAnswer, ws: HostileWorkspace): Promise<void> => {
    const info = await stat(ws.abs(PATHS.huge));
    check(info.size === HUGE_BYTES, `the huge file is now ${info.size} bytes, was ${HUGE_BYTES}`);
    const handle = await open(ws.abs(PATHS.huge));
    try {
      const head = Buffer.alloc(16);
      await handle.read(head, 0, 16, 0);
      check(
        head.toString("latin1").startsWith("line 1: "),
        `the huge file's first line changed: ${preview(head.toString("latin1"))}`,
      );
    } finally {
      await handle.close();
    }
  };
  return [
    {
      name: "read the first lines of a sparse 2 GiB file",
      group: "huge",
      tool: "read",
      args: { path: PATHS.huge, limit: 5 },
      expect: "answer",
      check: async (answer) => {
        check(
          answer.text.includes("line 1: ") && answer.text.includes("line 5: "),
          `lines 1–5 are not shown: ${preview(answer.text)}`,
        );
        check(!answer.text.includes("line 6: "), `more than the 5 lines asked for: ${preview(answer.text)}`);
      },
    },
    {
      name: "read lines 200–202 of a sparse 2 GiB file",
      group: "huge",
      tool: "read",
      args: { path: PATHS.huge, offset: 200, limit: 3 },
      expect: "answer",
      check: async (answer) =>
        check(
          answer.text.includes("line 200: ") && answer.text.includes("line 202: "),
          `lines 200–202 are not shown: ${preview(answer.text)}`,
        ),
    },
    {
      name: "grep a sparse 2 GiB file",
      group: "huge",
      tool: "grep",
      args: { pattern: "line", path: PATHS.huge },
      expect: "answer",
      check: async (answer) =>
        check(
          answer.text.includes(PATHS.huge) && /skipped/i.test(answer.text),
          `grep did not report ${PATHS.huge} as skipped: ${preview(answer.text)}`,
        ),
    },
    {
      name: "edit a sparse 2 GiB file",
      group: "huge",
      tool: "edit",
      args: { path: PATHS.huge, oldString: "line 1: ", newString: "LINE 1: " },
      expect: "any",
      check: async (answer, ws) => {
        if (answer.isError) await unchanged(answer, ws);
      },
    },
  ];
}

function linkCases(): ToolCase[] {
  const refused = (group: string, name: string, tool: string, args: Record<string, unknown>): ToolCase => ({
    name,
    group,
    tool,
    args,
    expect: "error",
  });
  return [
    refused("hard-link", "edit a hard link to an outside file", "edit", {
      path: PATHS.hardLink,
      oldString: MARK,
      newString: "EDITED",
    }),
    refused("hard-link", "write a hard link to an outside file", "write", {
      path: PATHS.hardLink,
      content: "overwritten\n",
    }),
    refused("symlink", "read a symlink to an outside file", "read", { path: PATHS.linkOut }),
    refused("symlink", "edit a symlink to an outside file", "edit", {
      path: PATHS.linkOut,
      oldString: MARK,
      newString: "EDITED",
    }),
    refused("symlink", "write a symlink to an outside file", "write", {
      path: PATHS.linkOut,
      content: "overwritten\n",
    }),
    refused("symlink", "ls a symlink to an outside directory", "ls", { path: PATHS.linkDir }),
    refused("symlink", "glob under a symlink to an outside directory", "glob", { pattern: "*", path: PATHS.linkDir }),
    refused("symlink", "grep under a symlink to an outside directory", "grep", {
      pattern: "SECRET",
      path: PATHS.linkDir,
    }),
    refused("symlink", "read through a symlinked outside directory", "read", { path: `${PATHS.linkDir}/race.txt` }),
    refused("symlink", "read a symlink loop", "read", { path: PATHS.linkLoop }),
    refused("symlink", "write a symlink loop", "write", { path: PATHS.linkLoop, content: "x" }),
    refused("symlink", "edit a symlink loop", "edit", { path: PATHS.linkLoop, oldString: "x", newString: "y" }),
    refused("symlink", "write into a symlinked outside directory", "write", {
      path: `${PATHS.linkDir}/new.txt`,
      content: "x",
    }),
    {
      name: "grep the workspace for the outside secret",
      group: "symlink",
      tool: "grep",
      args: { pattern: "OUTSIDE-SECRET" },
      expect: "answer",
    },
    {
      name: "glob ** over the workspace",
      group: "symlink",
      tool: "glob",
      args: { pattern: "**" },
      expect: "answer",
      check: async (answer) => {
        const through = answer.text.split("\n").filter((line) => /^(linkdir|swapdir)\//.test(line));
        check(through.length === 0, `glob listed files through a symlinked directory: ${through.join(", ")}`);
      },
    },
  ];
}

function catastrophicCases(): ToolCase[] {
  const bounded = (name: string, tool: string, args: Record<string, unknown>): ToolCase => ({
    name,
    group: "catastrophic",
    tool,
    args,
    expect: "any",
  });
  // A backtracking regex never finishes: the call must end at grep's deadline, saying so.
  const backtracking = (name: string, args: Record<string, unknown>): ToolCase => ({
    ...bounded(name, "grep", args),
    grepDeadlineMs: CATASTROPHIC_GREP_DEADLINE_MS,
    async check(answer) {
      check(
        answer.isError && answer.text.includes(`grep stopped after ${CATASTROPHIC_GREP_DEADLINE_MS} ms`),
        `not stopped by grep's deadline: ${preview(answer.text)}`,
      );
    },
  });
  return [
    backtracking(`grep /${CATASTROPHIC_REGEX}/ on 41 a's and a !`, {
      pattern: CATASTROPHIC_REGEX,
      path: PATHS.catastrophic,
    }),
    backtracking("grep /(x+x+)+y/ on a 5000-x line", { pattern: "(x+x+)+y", path: PATHS.catastrophic }),
    backtracking(`grep /${CATASTROPHIC_REGEX}/ over the workspace`, { pattern: CATASTROPHIC_REGEX }),
    bounded(`glob ${CATASTROPHIC_GLOB} on a deep path`, "glob", { pattern: CATASTROPHIC_GLOB, path: PATHS.deep }),
    bounded(`glob ${CATASTROPHIC_GLOB} over the workspace`, "glob", { pattern: CATASTROPHIC_GLOB }),
    bounded("grep with a catastrophic glob filter", "grep", {
      pattern: "deep",
      glob: CATASTROPHIC_GLOB,
      path: PATHS.deep,
    }),
    bounded("glob with 2^20 brace alternatives", "glob", { pattern: `${"{a,b}".repeat(20)}*` }),
  ];
}

function scanCases(): ToolCase[] {
  return [
    {
      name: "grep the whole hostile workspace",
      group: "scan",
      tool: "grep",
      args: { pattern: MARK },
      expect: "answer",
      check: async (answer) =>
        check(
          answer.text.includes(PATHS.huge),
          `grep over the workspace did not name ${PATHS.huge} as skipped: ${preview(answer.text)}`,
        ),
    },
    {
      name: "glob **/*.txt over the hostile workspace",
      group: "scan",
      tool: "glob",
      args: { pattern: "**/*.txt" },
      expect: "answer",
    },
    { name: "ls the hostile workspace", group: "scan", tool: "ls", args: { path: "." }, expect: "answer" },
  ];
}

/** The catalogue, in the order the suite runs it. */
export const TOOL_CASES: readonly ToolCase[] = Object.freeze([
  ...specialCases(),
  ...directoryCases(),
  editCase("binary", "any"),
  writeCase("binary", "any"),
  editCase("latin1", "any"),
  writeCase("latin1", "any"),
  editCase("bom", "answer"),
  editCase("bom", "answer", "𝄞 here\r\nlone\r", "𝄞 there\r\nlone\r"),
  writeCase("bom", "answer"),
  ...hugeCases(),
  ...linkCases(),
  ...catastrophicCases(),
  ...scanCases(),
]);
