// readLogFile: how Keelson reads a session log's bytes — from a regular file only, never more
// than a size limit. `readFile` on `/dev/zero` reads forever and on a FIFO blocks until a writer
// appears; a log path can name either (a typo, a hostile sessions dir). So the path is stat'ed
// first (a device is never even opened), then opened with O_NONBLOCK (opening a FIFO cannot
// block) and fstat'ed again (the file checked is the file read), and the read stops at the limit.
// Never through a symbolic link placed in the root (O_NOFOLLOW, file-modes.ts): `not-a-file`.
import type { Stats } from "node:fs";
import type * as fsp from "node:fs/promises";
import { StoreError } from "./types.js";
import { FOLLOWING_READ_FLAGS, isSymlinkRefusal, READ_FLAGS } from "./file-modes.js";

/** The largest session log Keelson reads: 1 GiB (`JsonlStoreOptions.maxLogBytes` lowers or raises it). */
export const MAX_LOG_BYTES = 1024 ** 3;

type Fs = Pick<typeof fsp, "open" | "stat">;

/** What a non-regular file is, for the error message. */
function kindOf(info: Stats): string {
  if (info.isDirectory()) return "a directory";
  if (info.isFIFO()) return "a FIFO (named pipe)";
  if (info.isCharacterDevice()) return "a character device";
  if (info.isBlockDevice()) return "a block device";
  if (info.isSocket()) return "a socket";
  return "not a regular file";
}

function refuse(file: string, info: Stats, maxBytes: number): void {
  if (!info.isFile()) {
    throw new StoreError(
      "not-a-file",
      `${file} is ${kindOf(info)}, not a regular file; session logs are read from regular files only`,
      { file },
    );
  }
  if (info.size > maxBytes) throw tooLarge(file, `${info.size} bytes`, maxBytes);
}

function tooLarge(file: string, size: string, maxBytes: number): StoreError {
  return new StoreError(
    "too-large",
    `${file} is ${size}, over the ${maxBytes}-byte limit for a session log; it was not read`,
    { file },
  );
}

export interface ReadLogOptions {
  /**
   * Follow a symbolic link to the log: for a file a person named (`keelson show ~/latest.jsonl`),
   * never for the logs a store's root holds (the default: `not-a-file`).
   */
  readonly followLinks?: boolean;
}

/** An open, checked log file: a regular file within the size limit when it was opened. */
export interface OpenLogFile {
  readonly handle: fsp.FileHandle;
  /** fstat of the open file. */
  readonly info: Stats;
}

/**
 * Opens `file` for reading if it is a regular file of at most `maxBytes`: throws
 * `StoreError('not-a-file')` for a directory, FIFO, device or socket and `StoreError('too-large')`
 * past the limit; a missing file rejects with Node's ENOENT. The caller closes the handle.
 */
export async function openLogFile(
  fs: Fs,
  file: string,
  maxBytes = MAX_LOG_BYTES,
  options: ReadLogOptions = {},
): Promise<OpenLogFile> {
  refuse(file, await fs.stat(file), maxBytes);
  let handle: fsp.FileHandle;
  try {
    handle = await fs.open(file, options.followLinks === true ? FOLLOWING_READ_FLAGS : READ_FLAGS);
  } catch (error) {
    if (isSymlinkRefusal(error))
      throw new StoreError(
        "not-a-file",
        `${file} is a symbolic link: a log is read only from the regular file the store's root holds`,
        {
          file,
          cause: error,
        },
      );
    // ENXIO: a socket (or a FIFO-like special file) swapped in after the stat.
    if ((error as NodeJS.ErrnoException).code === "ENXIO")
      throw new StoreError("not-a-file", `${file} is not a regular file (it cannot be opened for reading)`, {
        file,
        cause: error,
      });
    throw error;
  }
  try {
    const info = await handle.stat();
    refuse(file, info, maxBytes);
    return { handle, info };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/**
 * The bytes of `file`, through `openLogFile`'s checks; a file that grows past `maxBytes` while
 * being read is refused with `StoreError('too-large')` too.
 */
export async function readLogFile(
  fs: Fs,
  file: string,
  maxBytes = MAX_LOG_BYTES,
  options: ReadLogOptions = {},
): Promise<Buffer> {
  return (await readLogFileWithInfo(fs, file, maxBytes, options)).bytes;
}

/** `readLogFile`, also returning the fstat of the file taken before the read (the bytes may be longer if it grew meanwhile). */
export async function readLogFileWithInfo(
  fs: Fs,
  file: string,
  maxBytes = MAX_LOG_BYTES,
  options: ReadLogOptions = {},
): Promise<{ readonly bytes: Buffer; readonly info: Stats }> {
  const { handle, info } = await openLogFile(fs, file, maxBytes, options);
  try {
    let buffer = Buffer.allocUnsafe(info.size + 1); // +1: the read that sees end of file
    let filled = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
      if (bytesRead === 0) return { bytes: buffer.subarray(0, filled), info };
      filled += bytesRead;
      if (filled > maxBytes) throw tooLarge(file, `more than ${maxBytes} bytes`, maxBytes);
      if (filled === buffer.length) {
        // The file grew while being read (a writer appending): keep reading, up to the limit.
        const grown = Buffer.allocUnsafe(Math.min(buffer.length * 2, maxBytes + 1));
        buffer.copy(grown, 0, 0, filled);
        buffer = grown;
      }
    }
  } finally {
    await handle.close();
  }
}
