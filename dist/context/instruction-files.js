// Reading one directory's instruction file: AGENTS.md, else CLAUDE.md (only when the directory
// has no AGENTS.md at all). The final component is never followed: a symlink is refused (lstat,
// then O_NOFOLLOW on open), as is anything that is not a regular file; oversized files are
// ignored. Every outcome is a value, never a throw, so a contributor can render a notice.
import { constants } from "node:fs";
import { lstat, open } from "node:fs/promises";
import { basename, join } from "node:path";
import { errorCode } from "./paths.js";
export const INSTRUCTION_FILE_NAMES = ["AGENTS.md", "CLAUDE.md"];
/** True for a path whose last component is an instruction file name. */
export function isInstructionFileName(path) {
    return INSTRUCTION_FILE_NAMES.includes(basename(path));
}
/** The instruction file of `dir`, or undefined when it has neither name. */
export async function readInstructionFile(dir, maxFileBytes) {
    for (const name of INSTRUCTION_FILE_NAMES) {
        const path = join(dir, name);
        let info;
        try {
            info = await lstat(path);
        }
        catch (error) {
            const code = errorCode(error);
            if (code === "ENOENT" || code === "ENOTDIR")
                continue;
            return { path, status: "unreadable", detail: code ?? String(error) };
        }
        if (info.isSymbolicLink())
            return { path, status: "symlink", detail: "symbolic link" };
        if (!info.isFile())
            return { path, status: "not-a-file", detail: "not a regular file" };
        if (info.size > maxFileBytes)
            return { path, status: "too-large", detail: `${info.size} bytes` };
        return readRegularFile(path, maxFileBytes);
    }
    return undefined;
}
async function readRegularFile(path, maxFileBytes) {
    try {
        // O_NOFOLLOW closes the lstat→open race; O_NONBLOCK keeps a FIFO swapped in from blocking.
        const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
        try {
            const info = await handle.stat();
            if (!info.isFile())
                return { path, status: "not-a-file", detail: "not a regular file" };
            const bytes = await handle.readFile();
            if (bytes.length > maxFileBytes)
                return { path, status: "too-large", detail: `${bytes.length} bytes` };
            return {
                path,
                status: "ok",
                content: bytes
                    .toString("utf8")
                    .replace(/^\uFEFF/, "")
                    .replace(/\r\n?/g, "\n"),
            };
        }
        finally {
            await handle.close();
        }
    }
    catch (error) {
        const code = errorCode(error);
        if (code === "ELOOP")
            return { path, status: "symlink", detail: "symbolic link" };
        return { path, status: "unreadable", detail: code ?? String(error) };
    }
}
//# sourceMappingURL=instruction-files.js.map