// One open JSONL log being written: its handle, the committed size and layout (with the running
// SHA-256 a fork by reference needs), the buffered lines, and the flush that makes them durable
// (write at the committed size + fdatasync; on failure the file is truncated back and the batch
// stays buffered, so a retry cannot duplicate seqs).
import type { Hash } from "node:crypto";
import type * as nodeFs from "node:fs/promises";
import { extendLayout, type FileLayout } from "./file-layout.js";
import { fsErrorText } from "./fs-error-text.js";
import type { WriterState } from "./session-writers.js";
import { StoreError } from "./types.js";

export interface Writer extends WriterState {
  readonly file: string;
  readonly handle: nodeFs.FileHandle;
  committedBytes: number;
  /** Where the committed events sit, and the SHA-256 of the committed bytes (both extended by each flush). */
  readonly layout: FileLayout;
  readonly hash: Hash;
}

/** Writes and fdatasyncs the writer's buffer at its committed size (see the module comment). */
export async function flushWriter(writer: Writer): Promise<void> {
  if (writer.buffer.length === 0) return;
  const pending = writer.buffer;
  writer.buffer = [];
  const bytes = Buffer.from(pending.join(""));
  try {
    let written = 0;
    while (written < bytes.length) {
      const { bytesWritten } = await writer.handle.write(
        bytes,
        written,
        bytes.length - written,
        writer.committedBytes + written,
      );
      written += bytesWritten;
    }
    await writer.handle.datasync();
    extendLayout(writer.layout, writer.committedBytes, pending);
    writer.hash.update(bytes);
    writer.committedBytes += bytes.length;
  } catch (cause) {
    // Roll back to the committed size; keep the batch (ahead of anything appended meanwhile).
    writer.buffer = [...pending, ...writer.buffer];
    await writer.handle.truncate(writer.committedBytes).catch(() => undefined);
    throw new StoreError(
      "write-failed",
      `${writer.file}: flushing ${pending.length} event(s) failed and was rolled back: ${fsErrorText(cause)}`,
      { file: writer.file, cause },
    );
  }
}
