// `keelson sessions`' text listing when rows must be rendered, loaded by sessions-command.ts
// then: patched with the rows the store says changed since the kept listing
// (sessions-listing.ts), or every row rendered; printed and kept for the next listing.
import type { ListedLog, LogChanges } from "../store/listing.js";
import { listingKey } from "./listing-key.js";
import {
  type KeptListing,
  type Listing,
  listingOf,
  patchListing,
  type RenderedRow,
  writeListing,
} from "./sessions-listing.js";
import { createdOf, printListing, RENDER_TAG, rowOf, rowRenderer } from "./sessions-rows.js";
import { terminalLine, terminalLines } from "./terminal-text.js";

/**
 * The text listing from what the store said changed since the kept listing (`kept`, when one
 * was read): only the rows changed since are rendered when it can be patched, else every row.
 * Printed, then kept under the store's generation (the listing key made if there is none yet).
 */
export async function renderText(at: {
  readonly root: string;
  readonly index: boolean;
  /** Where the listing is kept. */
  readonly file: string;
  readonly key: Buffer | undefined;
  readonly kept: KeptListing | undefined;
  readonly changes: LogChanges;
}): Promise<void> {
  const { changes, kept } = at;
  const rowLine = await rowRenderer();
  let listing: Listing | undefined;
  if (changes.kind === "changes" && kept !== undefined) {
    const gone = new Set(changes.removed);
    const rendered = changes.changed.map((log): RenderedRow => {
      gone.add(log.name);
      const row = rowOf(log);
      return { name: log.name, created: createdOf(row), text: terminalLine(rowLine(row)) };
    });
    listing = patchListing(kept, rendered, gone);
  }
  if (listing === undefined) {
    // Every row, rendered in one piece (one escape scan of the whole text).
    const logs = changes.kind === "all" ? changes.logs : await allLogs(at);
    const rows = logs.map(rowOf).sort((a, b) => createdOf(a) - createdOf(b));
    const texts = rows.length === 0 ? [] : terminalLines(rows.map(rowLine)).split("\n");
    listing = listingOf(rows.map((r, i) => ({ name: r.name, created: createdOf(r), text: texts[i]! })));
  }
  printListing(at.root, listing.count, listing.body);
  const { generation } = changes;
  if (generation === undefined) return;
  const sealWith = at.key ?? (await listingKey({ create: true }));
  if (sealWith !== undefined) await writeListing(at.file, { render: RENDER_TAG, generation, ...listing }, sealWith);
}

/** Every row (`listLogs`), when a kept listing could not be patched. */
async function allLogs(target: { readonly root: string; readonly index: boolean }): Promise<ListedLog[]> {
  const store = new (await import("../store/index.js")).JsonlSessionStore(target);
  try {
    return await store.listLogs();
  } finally {
    await store.close();
  }
}
