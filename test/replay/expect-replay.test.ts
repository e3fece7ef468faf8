// expectReplayIdentical (`keelson/testing`) in an app's own suite: resolves with the report when
// the recorded session replays identical; otherwise throws a ReplayError whose message is the
// readable report. The same assertion under node:test (`node --test`, importing the package by
// name): exit 0, then exit 1 with the difference in its output once the app's system prompt changes.
import { execFile } from "node:child_process";
import { resolve } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { createAgent } from "../../src/loop/index.js";
import { ReplayError } from "../../src/replay/index.js";
import type { JsonlSessionStore } from "../../src/store/index.js";
import { expectReplayIdentical } from "../../src/testing/index.js";
import { type TempJsonlRoot, tempJsonlRoot } from "../store/jsonl-harness.js";
import { options } from "./fixtures/app-options.mjs";
import { scripted, TOOL_TURN } from "./support.js";

let dir: TempJsonlRoot;
let store: JsonlSessionStore;
let file: string;
beforeEach(async () => {
  dir = await tempJsonlRoot();
  store = dir.open();
  const agent = createAgent({ ...options, provider: scripted(TOOL_TURN), store });
  await agent.send("read a.txt");
  await agent.dispose();
  file = store.fileOf(agent.session.id);
});
afterEach(() => dir.cleanup());

function nodeTest(env: Record<string, string>): Promise<{ code: number; output: string }> {
  const script = resolve(import.meta.dirname, "fixtures/replay.node-test.mjs");
  return new Promise((done) => {
    execFile(
      process.execPath,
      ["--test", "--test-reporter=tap", script],
      { env: { PATH: process.env.PATH ?? "", ...env }, timeout: 60_000 },
      (error, stdout, stderr) => done({ code: error === null ? 0 : Number(error.code ?? 1), output: stdout + stderr }),
    );
  });
}

describe("expectReplayIdentical", () => {
  test("resolves with the report when every request is rebuilt exactly", async () => {
    const report = await expectReplayIdentical(file, options);
    expect(report).toMatchObject({ identical: true, requests: { logged: 2, replayed: 2, identical: 2 } });
  });

  test("throws a ReplayError whose message is the readable report", async () => {
    const error = await expectReplayIdentical(file, { ...options, system: "You are verbose." }).catch((e) => e);
    expect(error).toBeInstanceOf(ReplayError);
    expect(error).toBeInstanceOf(Error);
    expect(error.code).toBe("differs");
    expect(error.message).toContain("2 differences");
    expect(error.message).toContain("system line 1");
    expect(error.message).toContain('log:    "You are terse."');
    expect(error.message).toContain('replay: "You are verbose."');
    expect(error.report.identical).toBe(false);
  });

  test("under node:test, importing keelson/testing by name: passes, then fails with the difference", async () => {
    const passing = await nodeTest({ REPLAY_FILE: file });
    expect(passing.output).toContain("# pass 1");
    expect(passing.code).toBe(0);
    const failing = await nodeTest({ REPLAY_FILE: file, APP_SYSTEM: "You are verbose." });
    expect(failing.code).toBe(1);
    expect(failing.output).toContain("# fail 1");
    expect(failing.output).toContain("system line 1");
  });
});
