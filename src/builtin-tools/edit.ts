// `edit`: exact string replacement in one file. `oldString` must occur exactly once unless
// `replaceAll` is set; absent or ambiguous matches are refused with the count, so the model adds
// context instead of editing the wrong place. Replacement is literal (no `$&` patterns).
// Only single-link UTF-8 text files are edited (safe-open refuses binaries, other encodings, hard
// links, symlinks and special files), so every byte outside the replaced text is written back
// exactly; the file is opened race-free and rewritten through that handle.
import { defineTool, jsonSchema } from "../tools/index.js";
import { reportFailures } from "./output.js";
import { openForRewrite, readUtf8Text, replaceContent } from "./safe-open.js";
import { type BuiltinToolOptions, ToolFailure } from "./types.js";

const input = jsonSchema<{ path: string; oldString: string; newString: string; replaceAll?: boolean }>({
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

export function editTool({ workspace }: BuiltinToolOptions) {
  return defineTool({
    name: "edit",
    description:
      "Replace an exact string in a file. oldString must appear exactly once (include surrounding lines to make it unique) unless replaceAll is true.",
    input,
    execute: ({ path, oldString, newString, replaceAll = false }) =>
      reportFailures(async () => {
        if (oldString === newString)
          throw new ToolFailure("unchanged", "oldString and newString are identical; nothing to change");
        const file = await openForRewrite(workspace, path, "edit", { create: false });
        try {
          const text = await readUtf8Text(file, path, "edit");
          const pieces = text.split(oldString);
          const count = pieces.length - 1;
          if (count === 0)
            throw new ToolFailure(
              "no-match",
              `oldString was not found in ${path}; read the file and copy the text exactly (whitespace included)`,
            );
          if (count > 1 && !replaceAll) {
            throw new ToolFailure(
              "ambiguous-match",
              `oldString appears ${count} times in ${path}; include more surrounding text to make it unique, or set replaceAll to replace all ${count}`,
            );
          }
          await replaceContent(file.handle, Buffer.from(pieces.join(newString), "utf8"));
          return `Replaced ${count} occurrence${count === 1 ? "" : "s"} in ${workspace.display(file.path)}`;
        } finally {
          await file.handle.close();
        }
      }),
  });
}
