// The W5 bench plumbing works: the stored sessions are listed by the real `keelson sessions`,
// and each child reports its peak RSS (and, for the import row, the import's own time and RSS)
// on fd 3. One sample per row, no warm-up; no timing is asserted. Runs the build in dist/.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BASELINE, childEnv, IMPORT_ROW, measureStartup, prepareHome, sessionsRow } from "../../bench/w5-startup.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "keelson-w5-test-"));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe("W5 start-up bench", () => {
  it("samples every row once, round-robin, with peak RSS and the import's own figures", async () => {
    const { home, ids } = await prepareHome(dir, 2);
    expect(ids).toHaveLength(2);
    const commands = [BASELINE, sessionsRow(2), IMPORT_ROW];
    const measured = await measureStartup(commands, { runs: 1, warmup: 0, dir, env: childEnv(home) });
    expect(measured.map((m) => m.command)).toEqual(commands);
    for (const { samples } of measured) {
      expect(samples).toHaveLength(1);
      expect(samples[0]!.wallMs).toBeGreaterThan(0);
      expect(samples[0]!.maxRssMB).toBeGreaterThan(0);
    }
    expect(measured[0]!.samples[0]!.importMs).toBeUndefined();
    expect(measured[2]!.samples[0]).toMatchObject({ importMs: expect.any(Number), importRssMB: expect.any(Number) });
  });

  it("rejects a row whose output lacks what it must print", async () => {
    const { home } = await prepareHome(dir, 1);
    const wrong = { ...sessionsRow(3), label: "sessions expecting a third" };
    await expect(measureStartup([wrong], { runs: 1, warmup: 0, dir, env: childEnv(home) })).rejects.toThrow(
      /sessions expecting a third exited 0 without "w5-session-02"/,
    );
  });
});
