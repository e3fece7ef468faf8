// JsonlSessionStore's single-writer lock across processes: a live writer in another process is
// refused, a dead one's lock is stale and taken over. The other process is
// fixtures/hold-session.ts; the tests wait for its "ready" line, never for time to pass.
import { type ChildProcessByStdio, spawn } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { newSession, twoTurnLog } from "../support/builders.js";
import { expectStoreError } from "../support/store-expect.js";
import { rootWithStoredSession, type TempJsonlRoot } from "./jsonl-harness.js";
import { compiledScript } from "../../reliability/fixtures/compiled-script.js";

type Holder = ChildProcessByStdio<Writable, Readable, Readable>;

const script = fileURLToPath(new URL("./fixtures/hold-session.ts", import.meta.url));
const repoRoot = fileURLToPath(new URL("../..", import.meta.url));
// Spawning node with the tsx loader takes a moment; this bounds a hung child, it is not a wait.
const CHILD_TEST_TIMEOUT_MS = 30_000;

let dir: TempJsonlRoot;
const holders: Holder[] = [];
const session = twoTurnLog(newSession("shared"));

beforeEach(async () => {
  dir = await rootWithStoredSession(session);
});
afterEach(async () => {
  for (const child of holders.splice(0)) {
    if (!hasExited(child)) {
      child.kill("SIGKILL");
      await exited(child);
    }
  }
  await dir.cleanup();
});

const hasExited = (child: Holder): boolean => child.exitCode !== null || child.signalCode !== null;

function exited(child: Holder): Promise<void> {
  return hasExited(child) ? Promise.resolve() : new Promise((resolve) => child.once("exit", () => resolve()));
}

/** Starts a process holding `id` writable and resolves once it says "ready" (rejects with its stderr if it dies first). */
async function holdInAnotherProcess(id: string): Promise<Holder> {
  const child = spawn(process.execPath, [await compiledScript(script), dir.root, id], {
    cwd: repoRoot,
    stdio: ["pipe", "pipe", "pipe"],
  });
  holders.push(child);
  await new Promise<void>((resolve, reject) => {
    let out = "";
    let err = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      out += chunk;
      if (out.includes("ready\n")) resolve();
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      err += chunk;
    });
    child.once("exit", (code, signal) =>
      reject(new Error(`holder exited (${code ?? signal}) before "ready":\n${err}`)),
    );
  });
  return child;
}

describe("JSONL lock across processes", () => {
  test(
    "a session held by a writer in another process is refused with 'locked' naming that pid, while read-only loads still work",
    async () => {
      const child = await holdInAnotherProcess(session.id);

      const error = await expectStoreError(() => dir.open().load(session.id), "locked");
      expect(error.message).toContain(`pid ${child.pid}`);
      await expectStoreError(() => dir.open().create(session.header), "locked");
      expect((await dir.open().load(session.id, { readOnly: true })).session.events).toEqual(session.events);
    },
    CHILD_TEST_TIMEOUT_MS,
  );

  test(
    "the lock a killed writer process leaves behind is stale and the next writer takes it over",
    async () => {
      const child = await holdInAnotherProcess(session.id);
      child.kill("SIGKILL");
      await exited(child);
      const lockFile = join(dir.root, `${session.id}.lock`);
      expect(JSON.parse(await readFile(lockFile, "utf8"))).toMatchObject({ pid: child.pid });

      const loaded = await dir.open().load(session.id);
      expect(loaded.session.events).toEqual(session.events);
      expect(JSON.parse(await readFile(lockFile, "utf8"))).toMatchObject({ pid: process.pid });
    },
    CHILD_TEST_TIMEOUT_MS,
  );

  test(
    "a writer process that closes its store leaves no lock, and another process's writer loads the session",
    async () => {
      const child = await holdInAnotherProcess(session.id);
      child.stdin.end();
      await exited(child);
      expect(child.exitCode).toBe(0);
      expect(await readdir(dir.root)).toEqual([`${session.id}.jsonl`]);

      expect((await dir.open().load(session.id)).session.events).toEqual(session.events);
    },
    CHILD_TEST_TIMEOUT_MS,
  );
});
