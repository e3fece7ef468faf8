// The kept `keelson sessions` listing (src/cli/sessions-listing.ts): patching the kept rows with
// the changed ones gives the bytes a full render of the new rows gives (property test over random
// listings and changes); a torn, edited or other-render file is not used.
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, expect, test } from "vitest";
import {
  type Listing,
  listingOf,
  patchListing,
  readListing,
  type RenderedRow,
  writeListing,
} from "../../src/cli/sessions-listing.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "keelson-listing-"));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const order = (a: RenderedRow, b: RenderedRow): number =>
  a.created !== b.created ? a.created - b.created : a.name < b.name ? -1 : a.name > b.name ? 1 : 0;

/** A full render: the rows in order, one line each. */
const full = (rows: readonly RenderedRow[]): Listing => listingOf([...rows].sort(order));

/** A listing's bytes, whatever its pieces. */
const bytesOf = (l: Listing | undefined): unknown =>
  l === undefined
    ? undefined
    : { count: l.count, keys: Buffer.concat(l.keys).toString(), body: Buffer.concat(l.body).toString() };

const rowArb = fc.record({
  name: fc.constantFrom(...Array.from({ length: 12 }, (_, i) => `s${i}.jsonl`), "é.jsonl", "Z.jsonl"),
  created: fc.constantFrom(1, 2, 3, Number.MAX_SAFE_INTEGER),
  text: fc.string({ unit: "grapheme", maxLength: 20 }).map((t) => t.replace(/\n/g, " ")),
});
const rowsArb = fc.uniqueArray(rowArb, { selector: (r) => r.name, maxLength: 14 });

test("patching the kept rows equals rendering the new rows in full (random listings and changes)", async () => {
  const file = join(dir, "prop");
  await fc.assert(
    fc.asyncProperty(rowsArb, rowsArb, fc.array(fc.boolean(), { maxLength: 14 }), async (before, changed, drop) => {
      await writeListing(file, { render: "r", generation: "g", ...full(before) });
      const kept = await readListing(file, "r");
      expect(kept).toBeDefined();
      const removed = before.filter((_, i) => drop[i] === true).map((r) => r.name);
      const gone = new Set([...removed, ...changed.map((r) => r.name)]);
      const after = [...before.filter((r) => !gone.has(r.name)), ...changed];
      const patched = patchListing(kept!, changed, gone);
      expect(bytesOf(patched)).toEqual(bytesOf(full(after)));
    }),
    { numRuns: 200 },
  );
});

test("a kept listing is used only whole, unedited and of the same render", async () => {
  const file = join(dir, "kept");
  const rows = [
    { name: "a.jsonl", created: 1, text: "row a" },
    { name: "b.jsonl", created: 2, text: "row b" },
  ];
  await writeListing(file, { render: "r1", generation: "g1", ...full(rows) });
  expect(await readListing(file, "r1")).toMatchObject({ generation: "g1", count: 2 });
  expect(await readListing(file, "r2")).toBeUndefined(); // another render
  const bytes = await readFile(file);
  await writeFile(file, bytes.subarray(0, bytes.length - 3)); // torn
  expect(await readListing(file, "r1")).toBeUndefined();
  await writeFile(file, Buffer.from(bytes.toString("utf8").replace("row b", "row X"))); // edited by hand
  expect(await readListing(file, "r1")).toBeUndefined();
  await writeFile(file, "garbage");
  expect(await readListing(file, "r1")).toBeUndefined();
  expect(await readListing(join(dir, "missing"), "r1")).toBeUndefined();
});
