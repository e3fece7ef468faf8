// `pg` is loaded on the first connect only: importing Keelson, its store layer or even
// `keelson/store/postgres` loads no module of pg (a JSONL user never pays for it). Checked on the
// build in dist/ (the vitest globalSetup refreshes it) by a Node child whose module hook prints
// every URL it resolves; the last case connects, to show the hook would see pg.
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { usePgDatabase } from "./postgres-harness.js";

const DIST = resolve(import.meta.dirname, "../../dist");
const database = usePgDatabase();
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "keelson-pg-import-"));
  await writeFile(
    join(dir, "trace-hooks.mjs"),
    `export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  process.stdout.write("resolved " + result.url + "\\n");
  return result;
}
`,
  );
  await writeFile(
    join(dir, "trace.mjs"),
    `import { register } from "node:module";\nregister("./trace-hooks.mjs", import.meta.url);\n`,
  );
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The URLs a child resolves while running `code` (an ES module), and its exit code. */
function resolvedBy(code: string): Promise<{ urls: string[]; code: number; stderr: string }> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      ["--import", pathToFileURL(join(dir, "trace.mjs")).href, "--input-type=module", "-e", code],
      { cwd: dir, timeout: 60_000 },
      (error, stdout, stderr) => {
        const urls = stdout
          .split("\n")
          .filter((l) => l.startsWith("resolved "))
          .map((l) => l.slice("resolved ".length));
        done({ urls, code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stderr });
      },
    );
  });
}

const pgModules = (urls: readonly string[]): string[] => urls.filter((u) => /\/node_modules\/pg[^/]*\//.test(u));
const dist = (path: string): string => pathToFileURL(join(DIST, path)).href;

describe("pg is loaded only when a PostgreSQL store connects", () => {
  test.each([["index.js"], ["store/index.js"], ["store/postgres/index.js"]])(
    "importing dist/%s loads no pg module",
    async (entry) => {
      const result = await resolvedBy(`await import(${JSON.stringify(dist(entry))});`);
      expect(result.stderr).toBe("");
      expect(result.code).toBe(0);
      expect(result.urls).toContain(dist(entry));
      expect(pgModules(result.urls)).toEqual([]);
    },
  );

  test("the first connect loads pg (the trace sees it)", async () => {
    const url = database().url;
    const result = await resolvedBy(
      `const { PostgresSessionStore } = await import(${JSON.stringify(dist("store/postgres/index.js"))});
const store = new PostgresSessionStore({ url: ${JSON.stringify(url)} });
await store.list();
await store.close();`,
    );
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(pgModules(result.urls).length).toBeGreaterThan(0);
  });
});
