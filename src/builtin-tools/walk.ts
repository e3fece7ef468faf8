// The directory walk behind glob and grep: depth-first, entries sorted by code unit, `.git` and
// `node_modules` skipped, symbolic links never followed (no loops, no escape from the workspace).
// It yields regular files only, judged by the directory entry's type (readdir's d_type; Node
// lstats entries whose type the filesystem does not report) — FIFOs, sockets and devices are
// never yielded — and it opens no file: opening a FIFO to look at it would block a libuv thread.
// A yielded path can still change before a caller opens it; callers open through safe-open.
// `skip` leaves out a file or directory by its absolute path (the hidden paths: not even named).
import type { Dirent } from "node:fs";
import { readdir } from "node:fs/promises";
import { join } from "node:path";

export const SKIPPED_DIRECTORIES: ReadonlySet<string> = new Set([".git", "node_modules"]);

export interface WalkedFile {
  readonly path: string;
  /** `/`-separated, relative to the walk's start. */
  readonly relative: string;
}

export interface WalkOptions {
  readonly signal?: AbortSignal;
  /** Entries (absolute paths) neither yielded nor entered. */
  readonly skip?: (path: string) => boolean;
}

/** Every regular file below `dir`, in sorted order; unreadable directories and special files are skipped. */
export async function* walkFiles(dir: string, options: WalkOptions = {}, prefix = ""): AsyncGenerator<WalkedFile> {
  const { signal, skip } = options;
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
    const path = join(dir, entry.name);
    if (skip?.(path)) continue;
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRECTORIES.has(entry.name)) yield* walkFiles(path, options, relative);
    } else if (entry.isFile()) {
      yield { path, relative };
    }
  }
}
