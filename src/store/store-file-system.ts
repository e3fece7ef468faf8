// The file-system calls the JSONL store and its helpers make, as one injectable type. Its own
// file so that the helpers (reader, index, layout, meta peek) need not import the concrete
// store that uses them.
import type * as nodeFs from "node:fs/promises";

/** The file-system calls the store makes; injectable so tests can fail a write on purpose. */
export type StoreFileSystem = Pick<
  typeof nodeFs,
  "open" | "readFile" | "link" | "unlink" | "rename" | "mkdir" | "readdir" | "stat"
>;
