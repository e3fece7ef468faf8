// Replay on PostgreSQL: sessions a fleet worker ran replay identical with the profile they ran
// with — from the library (`profileAgentOptions`) and from `keelson replay --store postgres://…
// --profiles MODULE --profile NAME` — and a profile that changed since is caught; a fork stored
// by reference in PostgreSQL replays its seed under the parent's id.
import { execFile } from "node:child_process";
import { resolve } from "node:path";
import { describe, expect, test } from "vitest";
import { profileAgentOptions } from "../../src/loop/index.js";
import { forkAgent } from "../../src/loop/index.js";
import { replaySession } from "../../src/replay/index.js";
import { BIN } from "../cli/run-keelson.js";
import { appOptions, record, scripted, TOOL_TURN } from "../replay/support.js";
import { useFleetDatabase } from "./fleet-harness.js";
import { profiles } from "./fixtures/fleet-profiles.mjs";

const database = useFleetDatabase();
const PROFILES = resolve(import.meta.dirname, "fixtures/fleet-profiles.mjs");

function keelson(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { env: { PATH: process.env.PATH ?? "", HOME: "/nonexistent", NO_COLOR: "1" }, timeout: 60_000 },
      (error, stdout, stderr) => done({ code: error === null ? 0 : Number(error.code ?? 1), stdout, stderr }),
    );
  });
}

describe("replay of sessions a fleet ran", () => {
  test("identical with the profile they ran with (library and CLI); a changed profile is caught", async () => {
    await database().worker({ profiles, concurrency: 1 });
    const client = await database().client();
    for (const prompt of ["first question", "second question"]) {
      const id = await client.enqueueTurn({ sessionId: "fleet-replay", prompt, profile: "echo" });
      expect(await client.awaitTurn(id, { timeoutMs: 20_000 })).toMatchObject({ status: "done" });
    }
    const store = database().store();
    const options = await profileAgentOptions(profiles.echo, { profile: "echo", sessionId: "fleet-replay" });
    const report = await replaySession(store, "fleet-replay", options);
    expect(report.differences).toEqual([]);
    expect(report.requests).toEqual({ logged: 2, replayed: 2, identical: 2 });

    const changed = await replaySession(store, "fleet-replay", { ...options, system: "You are a new test agent." });
    expect(changed.differences.map((d) => d.segment)).toEqual([
      { kind: "system", line: 1 },
      { kind: "system", line: 1 },
    ]);

    const withProfile = (profile: string) =>
      keelson([
        "replay",
        "fleet-replay",
        "--store",
        database().url,
        "--profiles",
        PROFILES,
        "--profile",
        profile,
        "--check",
      ]);
    const cli = await withProfile("echo");
    expect(cli.code, cli.stderr).toBe(0);
    expect(cli.stdout).toContain("identical — 2 requests rebuilt exactly as logged");
    const other = await withProfile("other");
    expect(other.code, other.stderr).toBe(9);
    expect(other.stdout).toContain("config model");
  });

  test("a fork stored by reference in PostgreSQL replays identical (its seed under the parent's id)", async () => {
    const store = database().store();
    const options = appOptions(scripted([...TOOL_TURN, ...TOOL_TURN]), { store, system: "You are {{sessionId}}." });
    const parent = await record(options, ["one"]);
    const child = await forkAgent(store, parent, options);
    await child.send("two");
    await child.dispose();
    const report = await replaySession(store, child.session.id, options);
    expect(report.differences).toEqual([]);
    expect(report.requests.logged).toBe(4);
  });
});
