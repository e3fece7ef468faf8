import { readdir } from "node:fs/promises";
import { join } from "node:path";
export const SKIPPED_DIRECTORIES = new Set([".git", "node_modules"]);
/** Every regular file below `dir`, in sorted order; unreadable directories are skipped. */
export async function* walkFiles(dir, signal, prefix = "") {
    let entries;
    try {
        entries = await readdir(dir, { withFileTypes: true });
    }
    catch {
        return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
        if (signal?.aborted)
            return;
        const relative = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
        if (entry.isDirectory()) {
            if (!SKIPPED_DIRECTORIES.has(entry.name))
                yield* walkFiles(join(dir, entry.name), signal, relative);
        }
        else if (entry.isFile()) {
            yield { path: join(dir, entry.name), relative };
        }
    }
}
//# sourceMappingURL=walk.js.map