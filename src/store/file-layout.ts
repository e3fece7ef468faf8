// Where a JSONL log's events sit in its file, and the SHA-256 of its committed bytes: what a
// fork by reference needs to name a prefix of the file (seed-reference.ts) without reading it
// again. A writer extends both as it flushes; a load builds them from the bytes it read.
import { createHash, type Hash } from "node:crypto";
import type { StoreFileSystem } from "./store-file-system.js";
import { openLogFile } from "./read-log-file.js";
import type { SeedFrom } from "./seed-reference.js";

export interface FileLayout {
  /** Seq of the file's first own event line: a referencing log's seed length, else 0. */
  readonly firstSeq: number;
  /**
   * The byte offset just after the meta line (`[0]`) and after each own event line, in order:
   * the first `n` events end at `lineEnds[n - firstSeq]`. Append-only (a writer pushes as it flushes).
   */
  readonly lineEnds: number[];
  readonly seedFrom: SeedFrom | undefined;
}

/** The byte length of the file's prefix holding its first `n` events, when its own lines hold event `n - 1`. */
export function prefixEnd(layout: FileLayout, n: number): number | undefined {
  if (n <= layout.firstSeq) return undefined;
  return layout.lineEnds[n - layout.firstSeq];
}

/** Extends `layout` by the lines just written at `start` (their byte ends). */
export function extendLayout(layout: FileLayout, start: number, lines: readonly string[]): void {
  let end = start;
  for (const line of lines) {
    end += Buffer.byteLength(line);
    layout.lineEnds.push(end);
  }
}

/** A running SHA-256 over `bytes`. */
export function sha256Over(bytes: string | Buffer): Hash {
  return createHash("sha256").update(bytes);
}

/** The hex digest of a running hash, leaving it usable. */
export const digestOf = (hash: Hash): string => hash.copy().digest("hex");

/**
 * The hex SHA-256 of the first `bytes` bytes of `file` (read like a log: regular files only),
 * or undefined when the file is shorter.
 */
export async function sha256OfPrefix(
  fs: StoreFileSystem,
  file: string,
  bytes: number,
  maxLogBytes: number,
): Promise<string | undefined> {
  const { handle, info } = await openLogFile(fs, file, maxLogBytes);
  try {
    if (info.size < bytes) return undefined;
    const hash = createHash("sha256");
    const chunk = Buffer.allocUnsafe(Math.min(bytes, 1 << 20));
    for (let at = 0; at < bytes; ) {
      const { bytesRead } = await handle.read(chunk, 0, Math.min(chunk.length, bytes - at), at);
      if (bytesRead === 0) return undefined;
      hash.update(chunk.subarray(0, bytesRead));
      at += bytesRead;
    }
    return hash.digest("hex");
  } finally {
    await handle.close();
  }
}
