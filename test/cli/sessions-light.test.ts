// `keelson sessions` with nothing changed since its kept listing loads only the modules that
// listing runs (issue #20, W7): the store's light entry (store/listing.ts) and the summary
// index's fast view — no module of the session layer, and none of the store's write or load path
// (JsonlSessionStore, the writer, locks, the codec). Checked on the build in dist/ (the vitest
// globalSetup refreshes it) by running the real launcher with a module hook that records every
// URL it resolves, mapped to the source modules in those files by the build's metafile
// (test/support/dist-modules.ts). A changed listing still loads what it needs, and prints what
// the full read prints.
import { execFile } from "node:child_process";
import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { beforeAll, expect, it } from "vitest";
import { forkSession, Session } from "../../src/session/index.js";
import { JsonlSessionStore } from "../../src/store/index.js";
import { LogDriver, twoTurnLog } from "../support/builders.js";
import { sourceModulesOf } from "../support/dist-modules.js";
import { storeSession } from "../support/store-contract.js";
import { BIN, cleanEnv, keelson, tempHome } from "./run-keelson.js";

let home: string;
let sessions: string;

/** Modules of the store's write and load path: a nothing-changed listing runs none of them. */
const WRITE_PATH = [
  "jsonl-store",
  "jsonl-writer",
  "jsonl-codec",
  "lock",
  "publish",
  "session-writers",
  "seed-source",
  "seed-reference",
  "log-reader",
  "append-batch",
  "meta-peek",
  "session-index",
].map((name) => `src/store/${name}.ts`);

beforeAll(async () => {
  home = await tempHome();
  sessions = join(home, "sessions");
  await writeFile(
    join(home, "trace-hooks.mjs"),
    `import { appendFileSync } from "node:fs";
let out;
export function initialize(data) { out = data.out; }
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  appendFileSync(out, result.url + "\\n");
  return result;
}
`,
  );
  await writeFile(
    join(home, "trace.mjs"),
    `import { register } from "node:module";
register("./trace-hooks.mjs", import.meta.url, { data: { out: process.env.TRACE_OUT } });
`,
  );
  const store = new JsonlSessionStore({ root: sessions });
  for (const [i, id] of ["alpha", "beta", "gamma"].entries()) {
    const createdAt = 1_700_000_000_000 + i * 1000;
    await storeSession(store, twoTurnLog(Session.create({ id, createdAt, cwd: home }, { clock: () => createdAt })));
    await store.release(id);
  }
  // A fork stored by reference: its row depends on its parent's file (a special index entry).
  const parent = (await store.load("alpha", { readOnly: true })).session;
  const child = forkSession(parent, { id: "alpha-fork" });
  await store.create(child.header, child.events);
  await store.release(child.id);
  await store.close();
});

/** `keelson sessions` under the module hook: what it printed and the source modules it loaded. */
async function traced(args: readonly string[] = []): Promise<{ stdout: string; modules: string[] }> {
  const out = join(home, "trace.txt");
  await rm(out, { force: true });
  const stdout = await new Promise<string>((done, fail) => {
    execFile(
      process.execPath,
      ["--import", pathToFileURL(join(home, "trace.mjs")).href, BIN, "sessions", ...args],
      { env: cleanEnv(home, { TRACE_OUT: out }), cwd: home, timeout: 60_000 },
      (error, stdout, stderr) => (error === null && stderr === "" ? done(stdout) : fail(error ?? new Error(stderr))),
    );
  });
  const urls = (await readFile(out, "utf8")).split("\n");
  return { stdout, modules: sourceModulesOf(urls) };
}

it("a nothing-changed listing loads no session module and none of the store's write or load path", async () => {
  const full = await keelson(home, ["sessions"], { KEELSON_SESSION_INDEX: "off" });
  expect(full).toMatchObject({ code: 0, stderr: "" });
  expect(full.stdout).toContain("alpha-fork");
  const first = await traced(); // renders every row, keeps the listing
  expect(first.stdout).toBe(full.stdout);
  expect(first.modules).toContain("src/store/jsonl-store.ts"); // the hook sees what a render loads
  const again = await traced(); // nothing changed: the kept listing as it is
  expect(again.stdout).toBe(full.stdout);
  expect(again.modules.filter((m) => m.startsWith("src/session/"))).toEqual([]);
  expect(again.modules.filter((m) => WRITE_PATH.includes(m))).toEqual([]);
  expect(again.modules.filter((m) => /^src\/(messages|json|llm|loop)\//.test(m))).toEqual([]);
  expect(again.modules).not.toContain("src/store/index.ts"); // not the store barrel either
  expect(again.modules).not.toContain("src/cli/sessions-render.ts");
  expect(again.modules).toContain("src/store/listing.ts");
});

it("a changed listing and --json load what they run and print what the full read prints", async () => {
  const store = new JsonlSessionStore({ root: sessions });
  const { session } = await store.load("beta");
  const persistence = store.attach(session);
  new LogDriver(session).turn({ prompt: "one more", steps: [{ text: "done" }] });
  await persistence.flush();
  await store.release("beta");
  await store.close();
  const full = await keelson(home, ["sessions"], { KEELSON_SESSION_INDEX: "off" });
  const patched = await traced();
  expect(patched.stdout).toBe(full.stdout);
  expect(patched.stdout).toContain('"one more"');
  expect(patched.modules).toContain("src/cli/sessions-render.ts");
  expect(patched.modules).toContain("src/store/jsonl-store.ts");
  const json = await traced(["--json"]);
  const ids = json.stdout
    .trim()
    .split("\n")
    .map((l) => (JSON.parse(l) as { id: string }).id);
  expect(ids.sort()).toEqual(["alpha", "alpha-fork", "beta", "gamma"]);
  expect((await traced()).stdout).toBe(full.stdout);
});
