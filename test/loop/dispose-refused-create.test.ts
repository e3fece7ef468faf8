// An agent whose store refused to create its session (another writer holds it: `locked`; the
// file is already there: `exists`) never opened it, so `dispose()` has nothing to flush or
// release: it resolves, and the other writer's session and lock are left alone. (Regression:
// dispose used to flush and release anyway and rejected with StoreError `not-open`.)
import { readdir } from "node:fs/promises";
import { afterEach, beforeEach, expect, test } from "vitest";
import { StoreError } from "../../src/store/index.js";
import { type TempJsonlRoot, tempJsonlRoot } from "../store/jsonl-harness.js";
import { scriptedAgent } from "./support.js";

let dir: TempJsonlRoot;
beforeEach(async () => {
  dir = await tempJsonlRoot();
});
afterEach(() => dir.cleanup());

async function refusedCode(agentDone: Promise<unknown>): Promise<string> {
  const error = await agentDone.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(StoreError);
  return (error as StoreError).code;
}

test("dispose resolves for an agent whose session the store refused to create (locked, then exists)", async () => {
  const { agent: owner } = scriptedAgent({ sessionId: "shared", store: dir.open() });
  expect((await owner.send("first")).reason).toEqual({ kind: "completed" });
  const stored = await dir.bytesOf("shared");

  const { agent: locked } = scriptedAgent({ sessionId: "shared", store: dir.open() });
  expect(await refusedCode(locked.send("second"))).toBe("locked");
  await expect(locked.dispose()).resolves.toBeUndefined();
  expect((await owner.send("still mine")).reason).toEqual({ kind: "completed" }); // the owner keeps its lock and log
  await owner.dispose();
  const afterOwner = await dir.bytesOf("shared");
  expect(afterOwner.subarray(0, stored.length)).toEqual(stored);

  const { agent: late } = scriptedAgent({ sessionId: "shared", store: dir.open() });
  expect(await refusedCode(late.send("third"))).toBe("exists");
  await expect(late.dispose()).resolves.toBeUndefined();
  expect(await dir.bytesOf("shared")).toEqual(afterOwner);
  expect(await readdir(dir.root)).toEqual(["shared.jsonl"]);
});
