// The benchmarks load Keelson from the built package: with bench/keelson-from-dist.mjs after
// tsx, an import of a src/ module resolves to its dist/ file (the test run's global setup has
// rebuilt dist/ from the current sources), and anything else resolves as usual.
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { expect, test } from "vitest";
import { KEELSON_FROM_DIST } from "../../bench/workload.js";

const root = join(import.meta.dirname, "../..");

test("src/ imports resolve to dist/ under the benchmark's flags", () => {
  const script = [
    `console.log(import.meta.resolve(${JSON.stringify(pathToFileURL(join(root, "src/loop/index.ts")).href)}));`,
    `console.log(import.meta.resolve("vitest"));`,
  ].join("");
  const out = execFileSync(process.execPath, [...KEELSON_FROM_DIST, "--input-type=module", "-e", script], {
    cwd: root,
    encoding: "utf8",
  });
  const [keelson, other] = out.trim().split("\n");
  expect(keelson).toBe(pathToFileURL(join(root, "dist/loop/index.js")).href);
  expect(other).toContain("/node_modules/vitest/");
});
