// What the CLI approval tests share: the emulator model flag and a run paused on a mutating call.
import { expect } from "vitest";
import { keelson, sessionIdOf } from "./run-keelson.js";

export const MODEL = ["-m", "emulator:rule-based"];
export const WRITE = "write `hello` to a.txt";

export interface Listed {
  readonly sessionId: string;
  readonly callId: string;
  readonly tool: string;
  readonly arguments: string;
}

/** A paused session in `home` (cwd = home): returns its id and the pending call. */
export async function paused(home: string, extra: readonly string[] = []) {
  const run = await keelson(home, ["run", ...MODEL, ...extra, "--await-approval", WRITE]);
  expect(run.code, run.stderr).toBe(8);
  const id = sessionIdOf(run);
  expect(run.stderr).toContain(`turn 1 awaiting-approval`);
  const callId = /awaiting approval: (\S+) write/.exec(run.stderr)![1]!;
  return { id, callId };
}
