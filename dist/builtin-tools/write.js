// `write`: creates or overwrites a file with the given content, creating parent directories.
import { mkdir, stat, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { defineTool, jsonSchema } from "../tools/index.js";
import { reportFailures } from "./output.js";
import { ToolFailure } from "./types.js";
const input = jsonSchema({
    type: "object",
    properties: {
        path: { type: "string", minLength: 1, description: "File to write, relative to the workspace root" },
        content: { type: "string", description: "The complete new content of the file" },
    },
    required: ["path", "content"],
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