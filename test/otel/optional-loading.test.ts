// The integrations' dependencies load only when used: importing the built mcp and otel layers
// (and the package root) loads neither @modelcontextprotocol/sdk nor @opentelemetry/api; and
// otelTracing without @opentelemetry/api installed is a clear OtelError saying how to install it.
import { execFile } from "node:child_process";
import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { expect, test } from "vitest";
import { afterThisTest } from "../support/test-cleanups.js";

const DIST = resolve(import.meta.dirname, "../../dist");

function node(args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(process.execPath, args, { cwd, timeout: 60_000 }, (error, stdout, stderr) =>
      done({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout, stderr }),
    );
  });
}

test("importing keelson, its mcp and its otel layers loads no MCP SDK and no OpenTelemetry API", async () => {
  const dir = await mkdtemp(join(tmpdir(), "keelson-lazy-"));
  afterThisTest(() => rm(dir, { recursive: true, force: true }));
  // The hooks run on a thread of their own: a write to stdout from there can be lost at exit (a
  // flaky empty list); each resolved URL is appended to a file, synchronously, instead.
  const trace = join(dir, "resolved.txt");
  await writeFile(
    join(dir, "hooks.mjs"),
    `import { appendFileSync } from "node:fs";\nexport async function resolve(s, c, next) { const r = await next(s, c); appendFileSync(${JSON.stringify(trace)}, r.url + "\\n"); return r; }\n`,
  );
  await writeFile(
    join(dir, "trace.mjs"),
    'import { register } from "node:module";\nregister("./hooks.mjs", import.meta.url);\n',
  );
  const imports = ["index.js", "mcp/index.js", "otel/index.js"].map(
    (f) => `await import(${JSON.stringify(join(DIST, f))});`,
  );
  const result = await node(["--import", "./trace.mjs", "--input-type=module", "-e", imports.join("\n")], dir);
  expect(result.code, result.stderr).toBe(0);
  const loaded = (await readFile(trace, "utf8")).split("\n");
  expect(loaded.some((url) => url.endsWith("/dist/mcp/index.js"))).toBe(true);
  expect(loaded.some((url) => url.endsWith("/dist/otel/index.js"))).toBe(true);
  expect(loaded.filter((url) => /\/node_modules\/(@modelcontextprotocol|@opentelemetry)\//.test(url))).toEqual([]);
}, 60_000);

test("otelTracing without @opentelemetry/api installed is an OtelError naming the package", async () => {
  // the build, alone in a directory with no node_modules above it
  const dir = await mkdtemp(join(tmpdir(), "keelson-no-otel-"));
  afterThisTest(() => rm(dir, { recursive: true, force: true }));
  await cp(DIST, join(dir, "dist"), { recursive: true });
  await writeFile(join(dir, "package.json"), '{ "type": "module" }');
  const script = `
import { otelTracing } from "./dist/otel/index.js";
try { otelTracing(); console.log("no error"); }
catch (e) { console.log(e.name, e.code, e.message); }`;
  const result = await node(["--input-type=module", "-e", script], dir);
  expect(result.stdout).toMatch(
    /^OtelError api-missing otelTracing needs the optional peer dependency @opentelemetry\/api: npm install @opentelemetry\/api/,
  );
}, 60_000);
