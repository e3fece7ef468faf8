// `keelson sessions`: every stored session, oldest first — id, created (ISO), cwd, turns, and a
// preview of the last prompt. Each log is as a read-only load sees it (regular files only: a FIFO
// named `x.jsonl` never blocks the listing), through the store's summary index (`listLogs`: only
// logs changed since the last listing are read); a foreign or broken file is listed as `unreadable: …`
// and a log written by a newer Keelson as such, instead of stopping the listing. With the
// PostgreSQL store the listing is one query over the sessions table (no log is read): id,
// created, updated, cwd, parent and the first prompt. Prompts, cwds, file names and problems
// are untrusted: escaped for the terminal (terminal-text.ts), JSON lines included. The JSONL
// text listing is kept rendered between runs (sessions-listing.ts) and patched with the rows the
// store says changed since (`listLogChangesAt`); `--json` lists every row.
//
// This module is the kept listing's path alone: when nothing changed since it was kept it is
// printed as it is, with the store's light entry (store/listing.ts) and no row rendered — neither
// the store's JsonlSessionStore nor the session layer is loaded. Every other listing is loaded
// when it is needed: rows to render (sessions-render.ts), `--json` and PostgreSQL
// (sessions-full.ts).
import { join } from "node:path";
import type { Command } from "commander";
import { listLogChangesAt, SESSION_INDEX_DIR } from "../store/listing.js";
import { commandSummary } from "./commands.js";
import { jsonlTarget, usesJsonl } from "./jsonl-target.js";
import { listingKey } from "./listing-key.js";
import { readListing } from "./sessions-listing.js";
import { printListing, RENDER_TAG, rowRenderer } from "./sessions-rows.js";
import { storeSpec } from "./store-choice.js";

export function registerSessions(program: Command): void {
  program
    .command("sessions")
    .description(commandSummary("sessions"))
    .option("--json", "one JSON object per session")
    .action(async (flags: { json?: boolean }) => {
      if (usesJsonl() && flags.json !== true) return listText(jsonlTarget(storeSpec()));
      const full = await import("./sessions-full.js");
      return usesJsonl() ? full.listJson() : full.listDatabase(flags.json === true);
    });
}

/**
 * The text listing: the one kept at the last listing (sessions-listing.ts) when the store says
 * nothing changed since its generation; else patched with the rows changed since, or rendered
 * whole (sessions-render.ts).
 */
async function listText(target: { readonly root: string; readonly index: boolean }): Promise<void> {
  const file = join(target.root, SESSION_INDEX_DIR, "listing");
  const key = await listingKey(); // none yet, or unusable (not private): rendered in full
  const kept = key === undefined ? undefined : await readListing(file, RENDER_TAG, key);
  // No kept listing: every row will be rendered, and their module loads while the store lists.
  const render = kept === undefined ? import("./sessions-render.js") : undefined;
  render?.catch(() => undefined); // awaited below; a listing that fails first reports its own error
  const changes = await listLogChangesAt(target.root, kept?.generation, { index: target.index });
  if (kept !== undefined && changes.kind === "changes" && changes.changed.length + changes.removed.length === 0)
    return printListing(target.root, kept.count, [kept.body]); // nothing to keep anew
  // The render module and what a row's line needs (rowRenderer) load side by side, not one after the other.
  const [{ renderText }] = await Promise.all([render ?? import("./sessions-render.js"), rowRenderer()]);
  await renderText({ ...target, file, key, kept, changes });
}
