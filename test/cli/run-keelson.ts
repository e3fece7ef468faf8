// Runs the real `keelson` launcher (bin/keelson.js) as a subprocess with a private KEELSON_HOME
// and no provider keys, so nothing can reach the network unless a test points it somewhere.
import { execFile, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterThisFile } from "../support/test-cleanups.js";

export const BIN = resolve(import.meta.dirname, "../../bin/keelson.js");

export interface Result {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** A private KEELSON_HOME, removed when the test file ends (it may be made in a `beforeAll`). */
export async function tempHome(): Promise<string> {
  const home = await mkdtemp(join(tmpdir(), "keelson-cli-"));
  afterThisFile(() => rm(home, { recursive: true, force: true }));
  return home;
}

/** The environment of a subprocess: PATH and HOME only, plus `extra`. */
export function cleanEnv(home: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? home, KEELSON_HOME: home, NO_COLOR: "1", ...extra };
}

export function keelson(home: string, args: readonly string[], extra: Record<string, string> = {}): Promise<Result> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { env: cleanEnv(home, extra), cwd: home, timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : 1;
        done({ code, stdout, stderr });
      },
    );
  });
}

export { spawn };

/** The session id `run`/`resume` report on stderr. */
export function sessionIdOf(result: Result): string {
  const match = /keelson: session ([0-9a-f-]+) turn/.exec(result.stderr);
  if (match === null) throw new Error(`no session id in stderr:\n${result.stderr}\nstdout:\n${result.stdout}`);
  return match[1]!;
}
