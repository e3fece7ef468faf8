// `keelson replay`: a session `run` and `resume` recorded (on the built-in emulator, with the CLI's
// tools and prefix contributors) replays identical with the CLI's own configuration — by id and
// by file; once AGENTS.md changes, the prefix message of `workspaceInstructions` differs, and
// `--check` exits 9 (the CI gate) with the readable report, `--json` gives the report. Bad input
// exits 2; the log is never written.
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { keelson, sessionIdOf, tempHome } from "./run-keelson.js";

let home: string;
let workspace: string;
let id: string;

beforeAll(async () => {
  home = await tempHome();
  workspace = join(home, "ws");
  await mkdir(workspace);
  await writeFile(join(workspace, "notes.txt"), "hello\n");
  await writeFile(join(workspace, "AGENTS.md"), "# Agents\nBe brief.\n");
  const run = await keelson(home, ["run", "--cwd", workspace, "What is in notes.txt?"]);
  expect(run.code, run.stderr).toBe(0);
  id = sessionIdOf(run);
  const resumed = await keelson(home, ["resume", id, "and then?"]);
  expect(resumed.code, resumed.stderr).toBe(0);
}, 120_000);
afterAll(() => rm(home, { recursive: true, force: true }));

const logFile = (): string => join(home, "sessions", `${id}.jsonl`);

describe("keelson replay", () => {
  test("unchanged: identical, by id and by file; --check exits 0; the log is untouched", async () => {
    const before = await readFile(logFile(), "utf8");
    const byId = await keelson(home, ["replay", id, "--check"]);
    expect(byId.code, byId.stderr).toBe(0);
    expect(byId.stdout).toMatch(
      new RegExp(`^replay of ${id}: identical — \\d+ requests rebuilt exactly as logged\\n$`),
    );
    const byFile = await keelson(home, ["replay", logFile()]);
    expect(byFile.code, byFile.stderr).toBe(0);
    expect(byFile.stdout).toContain("identical");
    expect(await readFile(logFile(), "utf8")).toBe(before);
  });

  test("an edited AGENTS.md: --check exits 9 naming the prefix message, its contributor and the header that logged it", async () => {
    await writeFile(join(workspace, "AGENTS.md"), "# Agents\nAnswer in French.\n");
    try {
      const checked = await keelson(home, ["replay", id, "--check", "--limit", "1"]);
      expect(checked.code, checked.stderr).toBe(9);
      expect(checked.stdout).toContain("prefix message 0 (contributor workspaceInstructions)");
      expect(checked.stdout).toContain("Answer in French.");
      expect(checked.stdout).toContain("explained by seq 3: request/header (initial)");
      expect(checked.stdout).toMatch(/… \d+ more/);
      const json = await keelson(home, ["replay", id, "--json"]);
      expect(json.code).toBe(0); // without --check a difference is a report, not a failure
      const report = JSON.parse(json.stdout) as { identical: boolean; differences: { segment: unknown }[] };
      expect(report.identical).toBe(false);
      expect(report.differences[0]!.segment).toEqual({
        kind: "prefix",
        index: 0,
        contributor: "workspaceInstructions",
      });
    } finally {
      await writeFile(join(workspace, "AGENTS.md"), "# Agents\nBe brief.\n");
    }
  });

  test("bad input exits 2: an unknown session, --profile without --profiles", async () => {
    const unknown = await keelson(home, ["replay", "no-such-session"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown session no-such-session");
    const profile = await keelson(home, ["replay", id, "--profile", "support"]);
    expect(profile.code).toBe(2);
    expect(profile.stderr).toContain("--profile names a profile of --profiles MODULE");
  });
});
