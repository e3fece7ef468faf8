// Which session store a command uses: `--store <url|dir>` (accepted by every command), else
// $KEELSON_STORE, else the JSONL store in $KEELSON_HOME/sessions. A postgres:// or
// postgresql:// URL is the PostgreSQL store (its module is loaded only then, and `pg` only on
// the first query); anything else is a JSONL sessions directory. Commands work the same on both;
// where a message names a session's location it uses `whereOf` (a file path, or the database).
import { JsonlSessionStore, type SessionStore } from "../store/index.js";
import { isPostgresUrl, jsonlTarget } from "./jsonl-target.js";
import { storeSpec } from "./store-choice.js";

export { chooseStore, storeSpec } from "./store-choice.js";
export { isPostgresUrl, usesJsonl } from "./jsonl-target.js";

/** A store as the CLI uses it: the contract plus a human-readable location. */
export type CliStore = SessionStore & {
  /** The store as a whole: the sessions directory, or the database (credentials removed). */
  readonly label: string;
  /** Where session `id` is kept: its log file, or `<database> session <id>`. */
  whereOf(id: string): string;
};

/** Opens the store in force (nothing is connected or read until it is used). */
export async function openStore(): Promise<CliStore> {
  const spec = storeSpec();
  if (spec !== undefined && isPostgresUrl(spec)) {
    const { PostgresSessionStore } = await import("../store/postgres/index.js");
    return new PostgresSessionStore({ url: spec });
  }
  return openJsonlStore(spec);
}

/** The JSONL store of `spec` (a sessions directory) or of $KEELSON_HOME (jsonl-target.ts). */
export function openJsonlStore(spec = storeSpec()): JsonlSessionStore {
  return new JsonlSessionStore(jsonlTarget(spec));
}
