// `glob`: files under a directory whose path (relative to that directory, `/`-separated) matches
// a pattern (see glob-match.ts: linear-time matching, whatever the pattern). Only regular files
// are listed (walk.ts); none is opened, and hidden paths (path-guard.ts) are neither entered nor listed. Output is sorted, shown relative to the workspace root, and
// capped at MAX_GLOB_ENTRIES entries as well as by characters.
import { stat } from "node:fs/promises";
import { defineTool, jsonSchema } from "../tools/index.js";
import { compileGlob } from "./glob-match.js";
import { capOutput, DEFAULT_OUTPUT_CAP, reportFailures } from "./output.js";
import { type BuiltinToolOptions, ToolFailure } from "./types.js";
import { walkFiles } from "./walk.js";

export const MAX_GLOB_ENTRIES = 1000;

const input = jsonSchema<{ pattern: string; path?: string }>({
  type: "object",
  properties: {
    pattern: {
      type: "string",
      minLength: 1,
      description: "Glob: * (one segment), ** (any depth), ?, {a,b}; e.g. src/**/*.ts",
    },
    path: { type: "string", description: "Directory to search from (default: the workspace root)" },
  },
  required: ["pattern"],
});

export function globTool({ workspace, outputCap = DEFAULT_OUTPUT_CAP }: BuiltinToolOptions) {
  return defineTool({
    name: "glob",
    readOnly: true,
    description: "Find files by glob pattern (matched against paths relative to `path`). Skips .git and node_modules.",
    input,
    execute: ({ pattern, path = "." }, { signal }) =>
      reportFailures(async () => {
        const glob = compileGlob(pattern);
        const dir = await workspace.resolve(path);
        if (!(await stat(dir)).isDirectory()) throw new ToolFailure("not-a-directory", `${path} is not a directory`);
        const found: string[] = [];
        const skip = await workspace.guard.hiddenBelow(dir);
        for await (const file of walkFiles(dir, { signal, skip }))
          if (glob.matches(file.relative)) found.push(workspace.display(file.path));
        if (found.length === 0) return `No files match ${pattern}`;
        found.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
        const shown = found.slice(0, MAX_GLOB_ENTRIES);
        if (found.length > shown.length)
          shown.push(`[… ${found.length - shown.length} more matches; narrow the pattern …]`);
        return capOutput(shown.join("\n"), outputCap);
      }),
  });
}
