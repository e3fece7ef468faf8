// Which session store a command uses: `--store <url|dir>` (accepted by every command), else
// $KEELSON_STORE, else the JSONL store in $KEELSON_HOME/sessions. A postgres:// or
// postgresql:// URL is the PostgreSQL store (its module is loaded only then, and `pg` only on
// the first query); anything else is a JSONL sessions directory. Commands work the same on both;
// where a message names a session's location it uses `whereOf` (a file path, or the database).
import { resolve } from "node:path";
import { defaultSessionsDir } from "../home/index.js";
import { JsonlSessionStore, type SessionStore } from "../store/index.js";
import { storeSpec } from "./store-choice.js";

export { chooseStore, storeSpec } from "./store-choice.js";

/** A store as the CLI uses it: the contract plus a human-readable location. */
export type CliStore = SessionStore & {
  /** The store as a whole: the sessions directory, or the database (credentials removed). */
  readonly label: string;
  /** Where session `id` is kept: its log file, or `<database> session <id>`. */
  whereOf(id: string): string;
};

export const isPostgresUrl = (spec: string): boolean => /^postgres(ql)?:\/\//i.test(spec);

/** True when the store in force is a JSONL directory (sessions are files a FILE target can name). */
export function usesJsonl(): boolean {
  const spec = storeSpec();
  return spec === undefined || !isPostgresUrl(spec);
}

/** Opens the store in force (nothing is connected or read until it is used). */
export async function openStore(): Promise<CliStore> {
  const spec = storeSpec();
  if (spec !== undefined && isPostgresUrl(spec)) {
    const { PostgresSessionStore } = await import("../store/postgres/index.js");
    return new PostgresSessionStore({ url: spec });
  }
  return openJsonlStore(spec);
}

/**
 * The JSONL store of `spec` (a sessions directory) or of $KEELSON_HOME. `KEELSON_SESSION_INDEX=off`
 * lists without the summary index (every log read on every listing, no index written).
 */
export function openJsonlStore(spec = storeSpec()): JsonlSessionStore {
  return new JsonlSessionStore({
    root: spec === undefined || isPostgresUrl(spec) ? defaultSessionsDir() : resolve(spec),
    index: process.env.KEELSON_SESSION_INDEX !== "off",
  });
}
