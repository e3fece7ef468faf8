// `grep`: lines matching a JavaScript regular expression, as `file:line: text`, in a file or
// under a directory (optionally only files matching a glob: against the file name when the glob
// has no `/`, else against the path relative to `path`). Binary and huge files are skipped.
import { readFile, stat } from "node:fs/promises";
import { basename } from "node:path";
import { defineTool, jsonSchema } from "../tools/index.js";
import { globToRegExp } from "./glob-pattern.js";
import { capOutput, DEFAULT_OUTPUT_CAP, reportFailures } from "./output.js";
import { type BuiltinToolOptions, ToolFailure } from "./types.js";
import { type WalkedFile, walkFiles } from "./walk.js";

export const MAX_GREP_MATCHES = 500;
const MAX_LINE = 500;
const MAX_FILE_BYTES = 10 * 1024 * 1024;

const input = jsonSchema<{ pattern: string; path?: string; glob?: string }>({
  type: "object",
  properties: {
    pattern: { type: "string", minLength: 1, description: "JavaScript regular expression, matched per line" },
    path: { type: "string", description: "File or directory to search (default: the workspace root)" },
    glob: { type: "string", description: "Only files matching this glob, e.g. *.ts or src/**/*.ts" },
  },
  required: ["pattern"],
});

export function grepTool({ workspace, outputCap = DEFAULT_OUTPUT_CAP }: BuiltinToolOptions) {
  return defineTool({
    name: "grep",
    description:
      "Search file contents with a JavaScript regular expression; prints file:line: text. Skips .git, node_modules and binary files.",
    input,
    execute: ({ pattern, path = ".", glob }, { signal }) =>
      reportFailures(async () => {
        const regex = compile(pattern);
        const filter = glob === undefined ? undefined : globToRegExp(glob);
        const byName = glob !== undefined && !glob.includes("/");
        const target = await workspace.resolve(path);
        const files: AsyncIterable<WalkedFile> | WalkedFile[] = (await stat(target)).isDirectory()
          ? walkFiles(target, signal)
          : [{ path: target, relative: basename(target) }];
        const lines: string[] = [];
        let total = 0;
        for await (const file of files) {
          if (filter !== undefined && !filter.test(byName ? basename(file.relative) : file.relative)) continue;
          const text = await readText(file.path);
          if (text === undefined) continue;
          text.split(/\r?\n/).forEach((line, i) => {
            if (!regex.test(line)) return;
            total++;
            if (total <= MAX_GREP_MATCHES)
              lines.push(
                `${workspace.display(file.path)}:${i + 1}: ${line.length > MAX_LINE ? `${line.slice(0, MAX_LINE)}…` : line}`,
              );
          });
        }
        if (total === 0) return `No matches for /${pattern}/`;
        if (total > MAX_GREP_MATCHES)
          lines.push(`[… ${total - MAX_GREP_MATCHES} more matches; narrow the pattern or path …]`);
        return capOutput(lines.join("\n"), outputCap);
      }),
  });
}

function compile(pattern: string): RegExp {
  try {
    return new RegExp(pattern, "u");
  } catch {
    try {
      return new RegExp(pattern);
    } catch (error) {
      throw new ToolFailure("bad-pattern", `invalid regular expression /${pattern}/: ${(error as Error).message}`);
    }
  }
}

/** The file as text, or undefined when it is binary, huge or unreadable. */
async function readText(path: string): Promise<string | undefined> {
  try {
    if ((await stat(path)).size > MAX_FILE_BYTES) return undefined;
    const bytes = await readFile(path);
    return bytes.subarray(0, 8192).includes(0) ? undefined : bytes.toString("utf8");
  } catch {
    return undefined;
  }
}
