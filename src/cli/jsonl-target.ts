// Which JSONL store a store spec names — its sessions directory and whether listings keep the
// summary index — without loading the store layer: store-target.ts opens that store, and
// `keelson sessions`' kept-listing path (sessions-text.ts) lists it through the store's light
// entry. A postgres:// or postgresql:// URL names the PostgreSQL store instead.
import { resolve } from "node:path";
import { defaultSessionsDir } from "../home/index.js";
import { storeSpec } from "./store-choice.js";

export const isPostgresUrl = (spec: string): boolean => /^postgres(ql)?:\/\//i.test(spec);

/** True when the store in force is a JSONL directory (sessions are files a FILE target can name). */
export function usesJsonl(): boolean {
  const spec = storeSpec();
  return spec === undefined || !isPostgresUrl(spec);
}

/**
 * The JSONL store of `spec` (a sessions directory) or of $KEELSON_HOME. `KEELSON_SESSION_INDEX=off`
 * lists without the summary index (every log read on every listing, no index written).
 */
export function jsonlTarget(spec: string | undefined): { readonly root: string; readonly index: boolean } {
  return {
    root: spec === undefined || isPostgresUrl(spec) ? defaultSessionsDir() : resolve(spec),
    index: process.env.KEELSON_SESSION_INDEX !== "off",
  };
}
