// The directory walk behind glob and grep: depth-first, entries sorted by code unit, `.git` and
// `node_modules` skipped, symbolic links never followed (no loops, no escape from the workspace).
import type { Dirent } from "node:fs";
import { readdir } from "node:fs/promises";
import { join } from "node:path";

export const SKIPPED_DIRECTORIES: ReadonlySet<string> = new Set([".git", "node_modules"]);

export interface WalkedFile {
  readonly path: string;
  /** `/`-separated, relative to the walk's start. */
  readonly relative: string;
}

/** Every regular file below `dir`, in sorted order; unreadable directories are skipped. */
export async function* walkFiles(dir: string, signal?: AbortSignal, prefix = ""): AsyncGenerator<WalkedFile> {
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    if (signal?.aborted) return;
    const relative = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRECTORIES.has(entry.name)) yield* walkFiles(join(dir, entry.name), signal, relative);
    } else if (entry.isFile()) {
      yield { path: join(dir, entry.name), relative };
    }
  }
}
