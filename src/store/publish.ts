// publishNewFile: the atomic first write of a session log. The bytes go to a private temp file,
// fsynced, then `link`ed into place (atomic; fails rather than clobbers an existing log), then
// the directory is fsynced. The temp file is removed whatever fails (a full disk mid-write
// included), so a failed create leaves nothing behind.
import { randomBytes } from "node:crypto";
import type * as fsp from "node:fs/promises";
import { StoreError } from "./types.js";
import { PRIVATE_FILE } from "./file-modes.js";

type Fs = Pick<typeof fsp, "open" | "link" | "unlink">;

/** Publishes `bytes` as the new file `file` in directory `dir`; `StoreError('exists')` if it exists. */
export async function publishNewFile(fs: Fs, dir: string, file: string, bytes: string): Promise<void> {
  const temp = `${file}.tmp-${process.pid}-${randomBytes(4).toString("hex")}`;
  const handle = await fs.open(temp, "wx", PRIVATE_FILE); // a failed exclusive create made no file
  try {
    try {
      await handle.writeFile(bytes);
      await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      await fs.link(temp, file);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "EEXIST")
        throw new StoreError("exists", `session file ${file} already exists; not overwritten`, { file });
      throw e;
    }
  } finally {
    await fs.unlink(temp).catch(() => undefined);
  }
  const directory = await fs.open(dir, "r");
  try {
    await directory.sync();
  } finally {
    await directory.close();
  }
}
