// `keelson worker --profiles MODULE` with a module whose profiles no worker can run is bad input:
// exit 2 and one line with its code, whatever is wrong with it (found from outside: a module
// exporting nothing exited 2, one with an empty `profiles` or a profile without a provider exited
// 1, without the input code). Refused before any connection: the store names a port nothing
// listens on.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { keelson, tempHome } from "./run-keelson.js";

let home: string;
let dir: string;
beforeAll(async () => {
  home = await tempHome();
  dir = await mkdtemp(join(tmpdir(), "keelson-profiles-"));
});
afterAll(async () => {
  await rm(home, { recursive: true, force: true });
  await rm(dir, { recursive: true, force: true });
});

test.each([
  ["exports nothing", "export const other = 1;\n", /^keelson: --profiles .*: the module exports no `profiles` object/],
  [
    "an empty profiles object",
    "export const profiles = {};\n",
    /^keelson: invalid-options: a worker needs at least one profile/,
  ],
  [
    "a profile without a provider",
    'export const profiles = { p: { model: "scripted:x" } };\n',
    /^keelson: invalid-profile: .*needs a `provider`/,
  ],
])("a module with %s: exit 2, one line with the code, no connection", async (name, text, message) => {
  const module = join(dir, `${name.replaceAll(" ", "-")}.mjs`);
  await writeFile(module, text);
  const r = await keelson(home, ["worker", "--store", "postgres://nobody@127.0.0.1:1/none", "--profiles", module]);
  expect(r.code).toBe(2);
  expect(r.stderr).toMatch(message);
  expect(r.stderr.trim().split("\n")).toHaveLength(1);
});
