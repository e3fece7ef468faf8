// `ls`: one directory's entries, sorted by code unit; directories end in `/`, symlinks in `@`.
// Hidden paths (path-guard.ts: `~/.ssh`, Keelson's home…) are left out, not even named.
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { defineTool, jsonSchema } from "../tools/index.js";
import { capOutput, DEFAULT_OUTPUT_CAP, reportFailures } from "./output.js";
import { type BuiltinToolOptions, ToolFailure } from "./types.js";

const input = jsonSchema<{ path?: string }>({
  type: "object",
  properties: {
    path: { type: "string", description: "Directory to list, relative to the workspace root (default: the root)" },
  },
});

export function lsTool({ workspace, outputCap = DEFAULT_OUTPUT_CAP }: BuiltinToolOptions) {
  return defineTool({
    name: "ls",
    readOnly: true,
    description: "List a directory in the workspace. Directories end in /, symbolic links in @.",
    input,
    execute: ({ path = "." }) =>
      reportFailures(async () => {
        const dir = await workspace.resolve(path);
        if (!(await stat(dir)).isDirectory())
          throw new ToolFailure("not-a-directory", `${path} is not a directory (use read for files)`);
        const hidden = await workspace.guard.hiddenBelow(dir);
        const entries = (await readdir(dir, { withFileTypes: true })).filter((e) => !hidden(join(dir, e.name)));
        const names = entries
          .map((e) => e.name + (e.isDirectory() ? "/" : e.isSymbolicLink() ? "@" : ""))
          .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
        return names.length === 0 ? `${path} is empty` : capOutput(names.join("\n"), outputCap);
      }),
  });
}
