// `write`: creates or overwrites a file with the given content, creating parent directories.
import { mkdir, stat, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { z } from "zod";
import { defineTool } from "../tools/index.js";
import { reportFailures } from "./output.js";
import { ToolFailure } from "./types.js";
const input = z.object({
    path: z.string().min(1).describe("File to write, relative to the workspace root"),
    content: z.string().describe("The complete new content of the file"),
});
export function writeTool({ workspace }) {
    return defineTool({
        name: "write",
        description: "Create or overwrite a file in the workspace with the given content (parent directories are created).",
        input,
        execute: ({ path, content }) => reportFailures(async () => {
            const file = await workspace.resolve(path);
            const existing = await stat(file).catch(() => undefined);
            if (existing?.isDirectory())
                throw new ToolFailure("not-a-file", `${path} is a directory; write needs a file path`);
            await mkdir(dirname(file), { recursive: true });
            await writeFile(file, content);
            return `${existing === undefined ? "Created" : "Overwrote"} ${workspace.display(file)} (${Buffer.byteLength(content)} bytes)`;
        }),
    });
}
//# sourceMappingURL=write.js.map