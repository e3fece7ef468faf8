// `keelson worker` and `keelson send` end to end: the built CLI (node bin/keelson.js) against the
// run's PostgreSQL — the built-in emulator profile, a profiles module, KEELSON_STORE, --no-wait,
// exit codes, and SIGTERM draining the worker and releasing its leases.
import { fileURLToPath } from "node:url";
import { inject, expect, test } from "vitest";
import { FLEET_SCHEMA_VERSION, migrateFleet } from "../../src/fleet/index.js";
import { freshDatabase } from "../support/postgres.js";
import { useFleetDatabase } from "./fleet-harness.js";
import { runCli, type WorkerProcess, workerProcess } from "./worker-process.js";

const database = useFleetDatabase();

async function finished(cli: WorkerProcess): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const { code } = await cli.exited;
  return { code, stdout: cli.lines.join("\n"), stderr: cli.stderr() };
}

test("keelson send queues a prompt, a keelson worker runs it on the built-in emulator profile, send prints the answer", async () => {
  const worker = workerProcess(database().url, ["--emulator"]);
  try {
    const sent = await finished(
      runCli(["send", "--store", database().url, "cli-1", "hello from the cli", "--profile", "emulator"]),
    );
    expect(sent.code).toBe(0);
    expect(sent.stdout).toBe("Understood: hello from the cli");
    expect(sent.stderr).toMatch(/^turn \d+: done \(turn 1, completed\)\n$/);
    // KEELSON_STORE is the default store; a profile from the module; the session's second turn.
    const again = await finished(
      runCli(["send", "cli-1", "second turn", "--profile", "echo"], { KEELSON_STORE: database().url }),
    );
    expect(again).toMatchObject({ code: 0, stdout: "echo: second turn" });
    expect(again.stderr).toMatch(/\(turn 2, completed\)/);
  } finally {
    worker.signal("SIGTERM");
    await worker.exited;
  }
}, 60_000);

test("Ctrl-C while send waits stops the command, not the turn: exit 130, and stderr names the turn that goes on", async () => {
  const send = runCli(["send", "--store", database().url, "cli-int", "wait for me", "--profile", "nobody-serves-it"]);
  try {
    // Interrupted once it waits: its turn queued, and its LISTEN for the queue's news issued (after
    // its Ctrl-C handler is set). Polled for, not timed.
    const waiting = async (): Promise<string | undefined> => {
      const [turn] = await database().query<{ id: string }>(
        "SELECT id FROM keelson_turns WHERE session_id = 'cli-int'",
      );
      const listens = await database().query(
        "SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%'",
      );
      return listens.length > 0 ? turn?.id : undefined;
    };
    let turnId = await waiting();
    while (turnId === undefined) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      turnId = await waiting();
    }
    send.signal("SIGINT");
    const exited = await send.exited;
    expect(exited.code).toBe(130);
    expect(send.stderr()).toMatch(
      new RegExp(`stopped waiting for it; turn ${turnId} of session cli-int goes on on the fleet`),
    );
    const [row] = await database().query<{ status: string }>("SELECT status FROM keelson_turns WHERE id = $1", [
      turnId,
    ]);
    expect(row?.status).toBe("queued"); // still there for a worker of that profile
  } finally {
    send.signal("SIGKILL");
  }
}, 60_000);

test("send --no-wait prints the turn id; a failed turn exits 1; --json prints the record", async () => {
  const queued = await finished(
    runCli(["send", "--store", database().url, "cli-2", "later", "--no-wait", "--profile", "echo"]),
  );
  expect(queued.code).toBe(0);
  const [row] = await database().query<{ status: string; prompt: string }>(
    "SELECT status, prompt FROM keelson_turns WHERE id = $1",
    [queued.stdout],
  );
  expect(row).toEqual({ status: "queued", prompt: "later" });
  const worker = workerProcess(database().url);
  try {
    const failed = await finished(
      runCli(["send", "--store", database().url, "cli-2", "now [fail]", "--profile", "echo"]),
    );
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/: failed \(turn 2, error\): .*asked this request to fail/);
    const json = await finished(
      runCli(["send", "--store", database().url, "cli-2", "as json", "--profile", "echo", "--json"]),
    );
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ sessionId: "cli-2", status: "done", outcome: { turn: 3 } });
  } finally {
    worker.signal("SIGTERM");
    await worker.exited;
  }
}, 60_000);

test("send --timeout-ms gives up with exit 8 when no worker serves the profile; the turn stays queued", async () => {
  const sent = await finished(
    runCli([
      "send",
      "--store",
      database().url,
      "cli-3",
      "nobody serves this",
      "--profile",
      "nobody",
      "--timeout-ms",
      "300",
    ]),
  );
  expect(sent.code).toBe(8);
  expect(sent.stderr).toMatch(/still queued after 300 ms/);
});

test("SIGTERM drains: the running turn finishes and is recorded, the worker exits 0 and holds no lease", async () => {
  const worker = workerProcess(database().url, [], { KEELSON_FLEET_LATENCY_MS: "400" });
  const sender = runCli(["send", "--store", database().url, "cli-4", "finish me", "--profile", "echo"]);
  const started = await worker.line((l) => l.startsWith("started "));
  worker.signal("SIGTERM");
  expect((await worker.exited).code).toBe(0);
  expect(worker.lines).toContain(started.replace("started", "finished").replace(/running$/, "done"));
  expect(worker.stderr()).toMatch(/stopping; 1 running turn\(s\) finish first/);
  expect((await finished(sender)).stdout).toBe("echo: finish me");
  expect(await database().query("SELECT lease_owner FROM keelson_sessions WHERE id = 'cli-4'")).toEqual([
    { lease_owner: null },
  ]);
}, 60_000);

test("bad input: no store, a JSONL store, a missing profiles module, an unmigrated database", async () => {
  const env = { KEELSON_STORE: "" };
  const noStore = await finished(runCli(["worker"], env));
  expect(noStore).toMatchObject({ code: 2, stderr: expect.stringMatching(/worker needs --store postgres:\/\//) });
  const jsonl = await finished(runCli(["send", "--store", "/tmp/sessions", "x", "hi", "--profile", "echo"], env));
  expect(jsonl).toMatchObject({ code: 2, stderr: expect.stringMatching(/send needs a PostgreSQL store/) });
  const missing = await finished(
    runCli(["worker", "--store", database().url, "--profiles", "/nonexistent/profiles.mjs"]),
  );
  expect(missing).toMatchObject({
    code: 2,
    stderr: expect.stringMatching(/--profiles \/nonexistent\/profiles.mjs: the module could not be loaded/),
  });
  const fresh = await freshDatabase(inject("pgAdminUrl"));
  try {
    const unmigrated = await finished(runCli(["worker", "--store", fresh.url, "--emulator"]));
    expect(unmigrated.code).toBe(1);
    expect(unmigrated.stderr).toMatch(/not-migrated: .*keelson db migrate/);
    // --migrate sets the database up first.
    const migrating = workerProcess(fresh.url, ["--migrate"]);
    await new Promise<void>((resolve) => {
      const check = (): void => (migrating.stderr().includes("serving") ? resolve() : void setTimeout(check, 20));
      check();
    });
    migrating.signal("SIGTERM");
    expect((await migrating.exited).code).toBe(0);
    expect(await migrateFleet({ url: fresh.url })).toEqual({ from: FLEET_SCHEMA_VERSION, to: FLEET_SCHEMA_VERSION });
  } finally {
    await fresh.drop();
  }
}, 120_000); // eight CLI processes and a fresh database: slow on a loaded box

test("the emulator profile is asked for by name: send needs --profile, a worker serves it only with --emulator", async () => {
  // The README's example without a profile: refused before anything is queued (was: answered by the emulator).
  const unnamed = await finished(runCli(["send", "--store", database().url, "named-1", "Summarise the ticket"]));
  expect(unnamed).toMatchObject({ code: 2, stderr: expect.stringMatching(/send needs --profile NAME/) });
  expect(await database().query("SELECT id FROM keelson_turns WHERE session_id = 'named-1'")).toEqual([]);
  const bare = await finished(runCli(["worker", "--store", database().url]));
  expect(bare).toMatchObject({
    code: 2,
    stderr: expect.stringMatching(/worker needs --profiles MODULE .* or --emulator/),
  });
  // A worker with the test profiles only: a turn for `emulator` stays queued, and both sides say why.
  const worker = workerProcess(database().url);
  try {
    await new Promise<void>((resolve) => {
      const check = (): void => (worker.stderr().includes("serving") ? resolve() : void setTimeout(check, 20));
      check();
    });
    const sent = await finished(
      runCli(["send", "--store", database().url, "named-2", "hello", "--profile", "emulator", "--timeout-ms", "300"]),
    );
    expect(sent.code).toBe(8);
    expect(sent.stderr).toMatch(/still queued after 300 ms; no worker serving profile "emulator" has claimed it/);
    const followed = await finished(
      runCli([
        "send",
        "--store",
        database().url,
        "named-2",
        "hello",
        "--profile",
        "emulator",
        "--follow",
        "--timeout-ms",
        "300",
      ]),
    );
    expect(followed.code).toBe(8);
    expect(followed.stderr).toMatch(
      /still following after 300 ms; no worker serving profile "emulator" has claimed it/,
    );
    const [row] = await database().query<{ status: string }>(
      "SELECT status FROM keelson_turns WHERE session_id = 'named-2'",
    );
    expect(row).toEqual({ status: "queued" });
    await new Promise<void>((resolve) => {
      const check = (): void => (/does not serve/.test(worker.stderr()) ? resolve() : void setTimeout(check, 20));
      check();
    });
    expect(worker.stderr()).toMatch(
      /turn \d+ is queued under profile "emulator", which this worker does not serve \(it serves echo, other\); it stays queued/,
    );
    // Found from outside: a profile name is anyone's text — its 8-bit CSI and bidi override
    // reached both terminals raw (JSON quoting escapes ESC only).
    const hostile = "p\x1b[2J\u009bX\u202eY";
    const raw = /(?![\n\t])[\p{Cc}\u202a-\u202e\u2066-\u2069]/u; // what a terminal could obey
    const named = await finished(
      runCli(["send", "--store", database().url, "named-3", "hello", "--profile", hostile, "--timeout-ms", "300"]),
    );
    expect(named.code).toBe(8);
    expect(named.stderr).toContain("\\x9bX\\u{202e}Y");
    expect(raw.exec(named.stderr)).toBeNull();
    await new Promise<void>((resolve) => {
      const check = (): void => (worker.stderr().includes("\\u{202e}Y") ? resolve() : void setTimeout(check, 20));
      check();
    });
    expect(raw.exec(worker.stderr())).toBeNull();
  } finally {
    worker.signal("SIGTERM");
    await worker.exited;
  }
}, 60_000);

test("--profiles accepts a TypeScript module (loaded through tsx)", async () => {
  const worker = runCli([
    "worker",
    "--store",
    database().url,
    "--profiles",
    fileURLToPath(new URL("./fixtures/ts-profiles.ts", import.meta.url)),
    "--poll-ms",
    "50",
  ]);
  try {
    const sent = await finished(
      runCli(["send", "--store", database().url, "ts-1", "typed hello", "--profile", "typed"]),
    );
    expect(sent).toMatchObject({ code: 0, stdout: "echo: typed hello" });
    expect(worker.stderr()).toMatch(/serving typed from/);
  } finally {
    worker.signal("SIGTERM");
    await worker.exited;
  }
}, 60_000);
