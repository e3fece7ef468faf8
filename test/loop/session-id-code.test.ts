// Issue #20 ("what a new user tripped on"): one bad session id had two codes —
// `createAgent({ sessionId: "a b/c" })` threw `invalid-header` (the session header's check),
// `resumeAgent(store, "a b/c")` threw `invalid-id` (the store's). Both are now `invalid-id`,
// with the same words.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createAgent, forkAgent, resumeAgent } from "../../src/loop/index.js";
import { JsonlSessionStore } from "../../src/store/index.js";
import { agentOptions, scripted } from "./support.js";

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "keelson-session-id-"));
});
afterAll(() => rm(root, { recursive: true, force: true }));

async function refusal(run: () => unknown): Promise<{ code: unknown; message: unknown }> {
  try {
    await run();
  } catch (error) {
    return { code: (error as { code?: unknown }).code, message: (error as Error).message };
  }
  throw new Error("expected a refusal");
}

describe("a bad session id", () => {
  test.each(["a b/c", "../escape", ""])(
    "%j gets invalid-id from createAgent, resumeAgent and forkAgent alike",
    async (id) => {
      const store = new JsonlSessionStore({ root });
      const options = agentOptions(scripted());
      const expected = { code: "invalid-id", message: `${JSON.stringify(id)} is not a valid session id` };
      expect(await refusal(() => createAgent({ ...options, sessionId: id }))).toEqual(expected);
      expect(await refusal(() => createAgent({ ...options, sessionId: id, store }))).toEqual(expected);
      expect(await refusal(() => resumeAgent(store, id, options))).toEqual(expected);
      expect(await refusal(() => forkAgent(store, id, options))).toEqual(expected);
    },
  );

  test("a good one is still accepted", async () => {
    const agent = createAgent({ ...agentOptions(scripted()), sessionId: "my-session-1" });
    expect(agent.session.id).toBe("my-session-1");
    await agent.dispose();
  });
});
