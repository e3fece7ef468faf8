// The CLI's bash sandbox end to end (the real launcher, the emulator's "run `cmd`" rule):
// `--sandbox` defaults to workspace-write — a write outside the workspace is blocked where the
// sandbox works, the command refused (with a stderr warning at start) where it cannot start —
// `--sandbox off` runs it unconfined, a bad mode is exit 2; `keelson doctor` says whether the
// sandbox works here (exit 1 when not, with what to do).
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sandboxSupport } from "../../src/sandbox/index.js";
import { keelson, tempHome } from "./run-keelson.js";

const MISSING = { KEELSON_BWRAP: "/nonexistent/keelson-test/bwrap" };
const here = await sandboxSupport();
/** Each test spawns whole keelson processes; a loaded 2-core box needs the room (not a wait). */
const SLOW = 120_000;
let home: string;
let ws: string;
let outside: string;

beforeAll(async () => {
  home = await tempHome();
  ws = join(home, "ws");
  await mkdir(ws);
  outside = await mkdtemp(join(existsSync("/var/tmp") ? "/var/tmp" : tmpdir(), "keelson-cli-outside-"));
});
afterAll(async () => {
  await rm(home, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

/** The text of every bash result of a `run --json`. */
function bashResults(stdout: string): string[] {
  const events = stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { type: string; data: { content?: { text?: string }[] } });
  return events.filter((e) => e.type === "tool/result").map((e) => e.data.content?.[0]?.text ?? "");
}

const writeOutside = (file: string, sandbox: readonly string[] = [], env: Record<string, string> = {}) =>
  keelson(
    home,
    ["run", "--json", "--cwd", ws, "--allow", "bash", ...sandbox, `run \`echo pwned > ${join(outside, file)}\``],
    env,
  );

describe("keelson run --sandbox", () => {
  it(
    "by default bash cannot write outside the workspace (blocked, or refused where no sandbox starts)",
    async () => {
      const result = await writeOutside("default.txt");
      expect(result.code, result.stderr).toBe(0);
      expect(existsSync(join(outside, "default.txt"))).toBe(false);
      const [text] = bashResults(result.stdout);
      if (here.ok) expect(text).toContain("Read-only file system");
      else expect(text).toMatch(/^Command not run: the sandbox cannot start here/);
    },
    SLOW,
  );

  it(
    "where the sandbox cannot start: a warning at start, the command refused, nothing written",
    async () => {
      const result = await writeOutside("forced.txt", [], MISSING);
      expect(result.stderr).toContain(
        "keelson: the bash sandbox cannot start here (bubblewrap is not installed (no executable /nonexistent/keelson-test/bwrap found)): bash will refuse every command",
      );
      expect(bashResults(result.stdout)[0]).toMatch(/^Command not run: the sandbox cannot start here: .*--sandbox off/);
      expect(existsSync(join(outside, "forced.txt"))).toBe(false);
    },
    SLOW,
  );

  it(
    "--sandbox off runs bash unconfined (even with no bubblewrap): the write lands",
    async () => {
      const result = await writeOutside("off.txt", ["--sandbox", "off"], MISSING);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).not.toContain("sandbox cannot start");
      expect(existsSync(join(outside, "off.txt"))).toBe(true);
    },
    SLOW,
  );

  it.skipIf(!here.ok)(
    "a sessions directory given with --store is hidden from bash, like Keelson's own home",
    async () => {
      // Found from outside: only the default store, under Keelson's home, was hidden.
      const sessions = join(outside, "sessions");
      const result = await keelson(home, [
        "run",
        "--json",
        "--store",
        sessions,
        "--cwd",
        ws,
        "--allow",
        "bash",
        `run \`ls -A ${sessions} | wc -l\``,
      ]);
      expect(result.code, result.stderr).toBe(0);
      const [text] = bashResults(result.stdout);
      expect(text?.split("\n")[0]).toBe("0"); // an empty directory: the logs are out of sight
      expect((await import("node:fs")).readdirSync(sessions).some((f) => f.endsWith(".jsonl"))).toBe(true);
    },
    SLOW,
  );

  it(
    "a bad --sandbox is bad input (exit 2), nothing run",
    async () => {
      const result = await keelson(home, ["run", "--sandbox", "none", "hi"]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('invalid --sandbox "none": expected one of workspace-write, read-only, off');
    },
    SLOW,
  );
});

describe("keelson doctor", () => {
  it(
    "says whether the sandbox works here (exit 0 when it does, 1 with what to do when not)",
    async () => {
      const result = await keelson(home, ["doctor"]);
      expect(result.stdout).toContain(`node     ${process.version}`);
      if (here.ok) {
        expect(result.code).toBe(0);
        expect(result.stdout).toMatch(/sandbox {2}works: bubblewrap/);
      } else expect(result.code).toBe(1);
      const forced = await keelson(home, ["doctor"], MISSING);
      expect(forced.code).toBe(1);
      expect(forced.stdout).toContain("sandbox  does not work here: bubblewrap is not installed");
      expect(forced.stdout).toContain("fix: install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap;");
      expect(forced.stdout).toContain("unless you opt out with --sandbox off");
      const json = JSON.parse((await keelson(home, ["doctor", "--json"], MISSING)).stdout) as {
        sandbox: { ok: boolean };
      };
      expect(json.sandbox.ok).toBe(false);
    },
    SLOW,
  );
});
