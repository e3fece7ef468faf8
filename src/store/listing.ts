// The store layer's light entry (`keelson/store/listing`): what changed in a JSONL sessions
// directory's listing since a generation (`listLogChangesAt`), for a caller that keeps something
// derived from the rows and must start fast — `keelson sessions` with its kept listing. With
// nothing changed it runs the summary index's fast view alone (session-index-view.ts,
// session-index-changes.ts): neither JsonlSessionStore nor the session or messages layer is
// loaded. A log that must be read is loaded read-only by a JsonlSessionStore over the same root,
// made at the first such read (jsonl-store.ts is loaded then). `JsonlSessionStore.listLogChanges`
// runs the same code (`listChanges`) with its own loads.
import * as nodeFs from "node:fs/promises";
import type { JsonlSessionStore } from "./jsonl-store.js";
import { MAX_LOG_BYTES } from "./read-log-file.js";
import { type LogChanges, listChanges } from "./session-index-changes.js";

export { INDEX_DIR as SESSION_INDEX_DIR } from "./session-index-file.js";
export type { ListedLog, SessionDigest } from "./session-index.js";
export type { LogChanges } from "./session-index-changes.js";
export { StoreError } from "./types.js";

export interface LogChangesOptions {
  /** Whether listings read and keep the summary index (`JsonlStoreOptions.index`); default true. */
  readonly index?: boolean;
}

/**
 * `new JsonlSessionStore({ root, index }).listLogChanges(since)` (see there), with the store made
 * only when a log must be read, and closed before this returns.
 */
export async function listLogChangesAt(
  root: string,
  since?: string,
  { index = true }: LogChangesOptions = {},
): Promise<LogChanges> {
  let store: Promise<JsonlSessionStore> | undefined;
  const load = async (id: string) => {
    store ??= import("./jsonl-store.js").then((m) => new m.JsonlSessionStore({ root, index }));
    return (await (await store).load(id, { readOnly: true })).session;
  };
  try {
    return await listChanges({ fs: nodeFs, root, maxLogBytes: MAX_LOG_BYTES, useIndex: index }, since, load);
  } finally {
    if (store !== undefined) await (await store).close();
  }
}
