// The kept `keelson sessions` listing (src/cli/sessions-listing.ts): patching the kept rows with
// the changed ones gives the bytes a full render of the new rows gives (property test over random
// listings and changes); a torn, edited, foreign-sealed or other-render file is not used; the
// sealing key (src/cli/listing-key.ts) is private, made once, and refused when others could use it.
import { createHash, randomBytes } from "node:crypto";
import { chmod, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
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
import { listingKey } from "../../src/cli/listing-key.js";

let dir: string;
const key = randomBytes(32);
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
      await writeListing(file, { render: "r", generation: "g", ...full(before) }, key);
      const kept = await readListing(file, "r", key);
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
  await writeListing(file, { render: "r1", generation: "g1", ...full(rows) }, key);
  expect(await readListing(file, "r1", key)).toMatchObject({ generation: "g1", count: 2 });
  expect(await readListing(file, "r2", key)).toBeUndefined(); // another render
  const bytes = await readFile(file);
  await writeFile(file, bytes.subarray(0, bytes.length - 3)); // torn
  expect(await readListing(file, "r1", key)).toBeUndefined();
  await writeFile(file, Buffer.from(bytes.toString("utf8").replace("row b", "row X"))); // edited by hand
  expect(await readListing(file, "r1", key)).toBeUndefined();
  await writeFile(file, "garbage");
  expect(await readListing(file, "r1", key)).toBeUndefined();
  expect(await readListing(join(dir, "missing"), "r1", key)).toBeUndefined();
});

test("a listing sealed without this user's key — or with a digest anyone can compute — is not used", async () => {
  const file = join(dir, "foreign");
  const rows = [{ name: "a.jsonl", created: 1, text: "row \u001b]0;pwned\u0007 a" }];
  await writeListing(file, { render: "r", generation: "g", ...full(rows) }, randomBytes(32));
  expect(await readListing(file, "r", key)).toBeUndefined(); // another key
  // The pre-seal format: a plain SHA-1 of everything after line 1, computable by anyone.
  const rest = Buffer.concat([...full(rows).keys, ...full(rows).body]);
  const keys = Buffer.concat(full(rows).keys).length;
  const facts = { format: "keelson-sessions-listing", render: "r", generation: "g", count: 1, keys };
  const sha1 = createHash("sha1").update(rest).digest("hex");
  for (const forged of [
    { ...facts, digest: sha1 },
    { ...facts, seal: sha1 },
    { ...facts, seal: "" },
  ]) {
    await writeFile(file, Buffer.concat([Buffer.from(`${JSON.stringify(forged)}\n`), rest]));
    expect(await readListing(file, "r", key)).toBeUndefined();
  }
  await writeListing(file, { render: "r", generation: "g", ...full(rows) }, key);
  expect(await readListing(file, "r", key)).toMatchObject({ generation: "g", count: 1 }); // the same rows, sealed
});

test("the listing key: made once (0600) when asked to, the same on every read, refused when others could read or write it", async () => {
  const home = join(dir, "home");
  expect(await listingKey({ home })).toBeUndefined(); // reading makes nothing
  await expect(stat(home)).rejects.toMatchObject({ code: "ENOENT" });
  const first = await listingKey({ home, create: true });
  expect(first).toHaveLength(32);
  expect((await stat(join(home, "listing.key"))).mode & 0o777).toBe(0o600);
  expect(await listingKey({ home })).toEqual(first);
  expect(await listingKey({ home, create: true })).toEqual(first);
  const race = { home: join(dir, "race"), create: true };
  const both = await Promise.all([listingKey(race), listingKey(race)]);
  expect(both.every((k) => k === undefined || k.equals(both.find((x) => x !== undefined)!))).toBe(true);
  await chmod(join(home, "listing.key"), 0o644);
  expect(await listingKey({ home, create: true })).toBeUndefined(); // readable by others: not a secret, not replaced
  await chmod(join(home, "listing.key"), 0o600);
  await writeFile(join(home, "listing.key"), "not hex\n");
  expect(await listingKey({ home })).toBeUndefined();
  await writeFile(join(dir, "file-home"), "");
  expect(await listingKey({ home: join(dir, "file-home"), create: true })).toBeUndefined(); // no home: no key, no failure
});
