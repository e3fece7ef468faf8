// createAgent refuses a `provider` that is not a Provider (a provider's name as a string, any
// object without a `stream` function) at construction with LoopError('invalid-options') — before
// the store creates the session file, so nothing is written (found from outside: the agent was
// built, its session file created, and the first send failed with a TypeError).
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import type { Provider } from "../../src/llm/core.js";
import { ScriptedProvider } from "../../src/llm/core.js";
import { createAgent, LoopError } from "../../src/loop/index.js";
import { JsonlSessionStore } from "../../src/store/index.js";

let root: string;
let store: JsonlSessionStore;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "keelson-provider-door-"));
  store = new JsonlSessionStore({ root });
});
afterEach(async () => {
  await store.close();
  await rm(root, { recursive: true, force: true });
});

const NOT_PROVIDERS: unknown[] = ["anthropic", 42, null, {}, { id: "x" }, { id: "x", stream: "yes" }];

describe("createAgent's provider is checked at construction", () => {
  test("`provider` that is not a Provider: LoopError('invalid-options') naming it; nothing written", async () => {
    for (const provider of NOT_PROVIDERS) {
      const build = () => createAgent({ provider: provider as Provider, model: "m", store });
      expect(build).toThrow(LoopError);
      expect(build).toThrow(
        expect.objectContaining({
          code: "invalid-options",
          message: expect.stringMatching(/^provider must be a Provider/),
        }),
      );
    }
    expect(await readdir(root)).toEqual([]);
  });

  test("the `providers` entry a model's prefix selects is checked the same way", async () => {
    const providers = { anthropic: "anthropic" as unknown as Provider };
    expect(() => createAgent({ providers, model: "anthropic:claude", store })).toThrow(
      expect.objectContaining({ code: "invalid-options", message: expect.stringMatching(/providers\.anthropic/) }),
    );
    expect(await readdir(root)).toEqual([]);
  });

  test("a real provider is accepted", async () => {
    const agent = createAgent({ provider: new ScriptedProvider([{ text: "ok" }]), model: "m", store });
    expect((await agent.send("hi")).reason.kind).toBe("completed");
    await agent.dispose();
  });
});
