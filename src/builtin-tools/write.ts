// `write`: creates or overwrites a file with the given content, creating parent directories.
// The file is opened race-free inside the workspace (safe-open: verified parent directory,
// O_NOFOLLOW, no O_TRUNC) and replaced through that handle after the checks. An existing file
// must be a single-link UTF-8 text file: binaries and other encodings are refused, not clobbered.
import { defineTool, jsonSchema } from "../tools/index.js";
import { reportFailures } from "./output.js";
import { assertUtf8Text, openForRewrite, replaceContent } from "./safe-open.js";
import type { BuiltinToolOptions } from "./types.js";

const input = jsonSchema<{ path: string; content: string }>({
  type: "object",
  properties: {
    path: { type: "string", minLength: 1, description: "File to write, relative to the workspace root" },
    content: { type: "string", description: "The complete new content of the file" },
  },
  required: ["path", "content"],
});

export function writeTool({ workspace }: BuiltinToolOptions) {
  return defineTool({
    name: "write",
    description: "Create or overwrite a file in the workspace with the given content (parent directories are created).",
    input,
    execute: ({ path, content }) =>
      reportFailures(async () => {
        const file = await openForRewrite(workspace, path, "write", { create: true });
        try {
          if (!file.created) await assertUtf8Text(file, path, "write");
          const bytes = Buffer.from(content, "utf8");
          await replaceContent(file.handle, bytes);
          return `${file.created ? "Created" : "Overwrote"} ${workspace.display(file.path)} (${bytes.length} bytes)`;
        } finally {
          await file.handle.close();
        }
      }),
  });
}
