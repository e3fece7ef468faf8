// `pg` is loaded on the first connect only: importing Keelson, its store layer or even
// `keelson/store/postgres` loads no module of pg (a JSONL user never pays for it). Checked on the
// build in dist/ (the vitest globalSetup refreshes it) by a Node child whose module hook writes
// every URL it resolves to a file; the last case connects, to show the hook would see pg.
import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
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
    // Appended to a file, synchronously: the hooks run on a thread of their own, whose writes to
    // stdout can be lost at exit.
    `import { appendFileSync } from "node:fs";
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  appendFileSync(process.env.KEELSON_TRACE_OUT, result.url + "\\n");
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
let runs = 0;
function resolvedBy(code: string): Promise<{ urls: string[]; code: number; stderr: string }> {
  const out = join(dir, `resolved-${++runs}.txt`);
  return new Promise((done) => {
    execFile(
      process.execPath,
      ["--import", pathToFileURL(join(dir, "trace.mjs")).href, "--input-type=module", "-e", code],
      { cwd: dir, timeout: 60_000, env: { ...process.env, KEELSON_TRACE_OUT: out } },
      (error, _stdout, stderr) => {
        const urls = existsSync(out)
          ? readFileSync(out, "utf8")
              .split("\n")
              .filter((l) => l !== "")
          : [];
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
