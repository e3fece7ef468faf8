// The README's five-minute tour is examples/tour.ts verbatim, and it runs as written: an agent on
// the emulator with a tool and a prefix contributor, then a resumed instance.
import { spawnSync } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";

test("the README's tour block is examples/tour.ts (minus its header comment)", async () => {
  const [readme, tour] = await Promise.all([readFile("README.md", "utf8"), readFile("examples/tour.ts", "utf8")]);
  const body = tour.replace(/^(?:\/\/.*\n)+/, "").trim();
  expect(readme).toContain(`\`\`\`ts\n${body}\n\`\`\``);
});

test("examples/tour.ts runs: two turns, a resumed instance, the prefix on the header", async () => {
  const dir = await mkdtemp(join(tmpdir(), "keelson-tour-"));
  try {
    const run = spawnSync(process.execPath, ["--import", "tsx", "examples/tour.ts"], {
      env: { ...process.env, TOUR_SESSIONS: dir },
      encoding: "utf8",
    });
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^turn 1 completed · .*read returned: "notes.txt: 42 words"/m);
    expect(run.stdout).toMatch(/^turn 2 completed$/m);
    expect(run.stdout).toContain("3 requests reconstructed; the prefix is on the header: 1 message(s)");
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}, 60_000);
