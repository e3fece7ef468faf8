// `edit`: exact string replacement in one file. `oldString` must occur exactly once unless
// `replaceAll` is set; absent or ambiguous matches are refused with the count, so the model adds
// context instead of editing the wrong place. Replacement is literal (no `$&` patterns).
import { readFile, writeFile } from "node:fs/promises";
import { defineTool, jsonSchema } from "../tools/index.js";
import { reportFailures } from "./output.js";
import { ToolFailure } from "./types.js";
const input = jsonSchema({
    type: "object",
    properties: {
        path: { type: "string", minLength: 1, description: "File to edit, relative to the workspace root" },
        oldString: {
            type: "string",
            minLength: 1,
            description: "Exact text to replace (must be unique unless replaceAll)",
        },
        newString: { type: "string", description: "Replacement text" },
        replaceAll: { type: "boolean", description: "Replace every occurrence" },
    },
    required: ["path", "oldString", "newString"],
});
export function editTool({ workspace }) {
    return defineTool({
        name: "edit",
        description: "Replace an exact string in a file. oldString must appear exactly once (include surrounding lines to make it unique) unless replaceAll is true.",
        input,
        execute: ({ path, oldString, newString, replaceAll = false }) => reportFailures(async () => {
            const file = await workspace.resolve(path);
            if (oldString === newString)
                throw new ToolFailure("unchanged", "oldString and newString are identical; nothing to change");
            const text = await readFile(file, "utf8");
            const pieces = text.split(oldString);
            const count = pieces.length - 1;
            if (count === 0)
                throw new ToolFailure("no-match", `oldString was not found in ${path}; read the file and copy the text exactly (whitespace included)`);
            if (count > 1 && !replaceAll) {
                throw new ToolFailure("ambiguous-match", `oldString appears ${count} times in ${path}; include more surrounding text to make it unique, or set replaceAll to replace all ${count}`);
            }
            await writeFile(file, pieces.join(newString));
            return `Replaced ${count} occurrence${count === 1 ? "" : "s"} in ${workspace.display(file)}`;
        }),
    });
}
//# sourceMappingURL=edit.js.map