// `read`: a text file with line numbers (`cat -n` style), optionally a range of lines. Directories
// and binary files (a NUL byte in the first 8 KiB) are refused; long files say how to continue.
import { readFile, stat } from "node:fs/promises";
import { defineTool, jsonSchema } from "../tools/index.js";
import { capOutput, DEFAULT_OUTPUT_CAP, reportFailures } from "./output.js";
import { ToolFailure } from "./types.js";
const DEFAULT_LIMIT = 2000;
const input = jsonSchema({
    type: "object",
    properties: {
        path: { type: "string", description: "File to read, relative to the workspace root" },
        offset: { type: "integer", minimum: 1, description: "First line to show (1-based)" },
        limit: { type: "integer", minimum: 1, description: `How many lines to show (default ${DEFAULT_LIMIT})` },
    },
    required: ["path"],
});
export function readTool({ workspace, outputCap = DEFAULT_OUTPUT_CAP }) {
    return defineTool({
        name: "read",
        description: "Read a text file from the workspace. Lines are numbered; use offset and limit for a range of lines.",
        input,
        execute: ({ path, offset = 1, limit = DEFAULT_LIMIT }) => reportFailures(async () => {
            const file = await workspace.resolve(path);
            if (!(await stat(file)).isFile())
                throw new ToolFailure("not-a-file", `${path} is not a regular file (use ls for directories)`);
            const bytes = await readFile(file);
            if (bytes.subarray(0, 8192).includes(0))
                throw new ToolFailure("binary-file", `${path} looks binary (it contains NUL bytes); read shows text files only`);
            const text = bytes.toString("utf8");
            if (text === "")
                return `${path} is empty`;
            const lines = text.replace(/\r?\n$/, "").split(/\r?\n/);
            if (offset > lines.length)
                throw new ToolFailure("bad-range", `offset ${offset} is past the end of ${path} (${lines.length} lines)`);
            const end = Math.min(lines.length, offset - 1 + limit);
            const shown = lines.slice(offset - 1, end).map((line, i) => `${String(offset + i).padStart(6)}\t${line}`);
            if (end < lines.length)
                shown.push(`[… ${lines.length - end} more lines; continue with offset ${end + 1} …]`);
            return capOutput(shown.join("\n"), outputCap);
        }),
    });
}
//# sourceMappingURL=read.js.map