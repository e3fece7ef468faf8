// The hook table in src/loop/README.md is generated from the hooks' TSDoc in the types
// (scripts/hook-table.mjs), so the contracts are written once: a README that drifted from the
// types fails here, and so does a table the formatter would rewrite.
import { execFile } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, test } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const run = promisify(execFile);

/** Exit code and output of `command args…` in the repository root. */
async function exitOf(command: string, args: readonly string[]): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run(command, args, { cwd: ROOT });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, output: `${failed.stdout ?? ""}${failed.stderr ?? ""}` };
  }
}

describe("the hook table", () => {
  test("src/loop/README.md's hook table is the one the types' TSDoc generates", async () => {
    const check = await exitOf(process.execPath, [join(ROOT, "scripts/hook-table.mjs"), "--check"]);
    // The compiler's child process (typescript/unstable/sync, a Go program) may say "context
    // canceled" on its stderr as the API closes it: its noise, not the check's (a CI run failed on it).
    const output = check.output.replace(/^context canceled\n/m, "");
    expect({ ...check, output }).toStrictEqual({
      code: 0,
      output: "src/loop/README.md: the hook table matches the types.\n",
    });
  });

  test("the generated table is already formatted as biome formats markdown", async () => {
    const format = await exitOf(join(ROOT, "node_modules/.bin/biome"), ["format", "src/loop/README.md"]);
    expect(format.code, format.output).toBe(0);
  });
});
