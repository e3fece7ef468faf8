// Per-step durability (issue #12 D1/D2): with a store, the loop makes the log durable after the
// model's answer and before any tool that may have side effects runs, after every step, and at
// turn end — so a crash loses at most the step in flight, never the record of a tool that ran.
// A failed flush ends the turn at once (`not-saved`), no further tool runs, the outcome says
// `saved: false`, later input is refused until the store recovers, and `agent.flush()` retries.
import { readFileSync } from "node:fs";
import * as nodeFs from "node:fs/promises";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { ScriptedProvider } from "../../src/llm/core.js";
import { createAgent, LoopError } from "../../src/loop/index.js";
import { JsonlSessionStore, type StoreFileSystem } from "../../src/store/index.js";
import { defineTool, jsonSchema } from "../../src/tools/index.js";
import { fixedClock } from "../support/builders.js";

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "keelson-durability-"));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

/** The event types on disk right now (line 1 is the session header). */
function typesOnDisk(store: JsonlSessionStore, id: string): string[] {
  return readFileSync(store.fileOf(id), "utf8")
    .split("\n")
    .slice(1)
    .filter((line) => line !== "")
    .map((line) => (JSON.parse(line) as { type: string }).type);
}

/** A file system whose fsyncs fail while `failing` is set (as a full or read-only disk would). */
function flakyFs(): { fs: StoreFileSystem; failing: boolean } {
  const state = { failing: false } as { fs: StoreFileSystem; failing: boolean };
  const wrap = (handle: nodeFs.FileHandle): nodeFs.FileHandle =>
    new Proxy(handle, {
      get(target, prop) {
        if ((prop === "write" || prop === "sync" || prop === "datasync") && state.failing)
          return async () => {
            throw Object.assign(new Error("ENOSPC: no space left on device (injected)"), { code: "ENOSPC" });
          };
        const value: unknown = Reflect.get(target, prop, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  state.fs = { ...nodeFs, open: async (path, flags, mode) => wrap(await nodeFs.open(path, flags, mode)) };
  return state;
}

const noArgs = jsonSchema({ type: "object", properties: {} });

describe("what is on disk when a tool runs", () => {
  test("a tool that may have side effects runs only after its call and every earlier result are durable", async () => {
    const store = new JsonlSessionStore({ root });
    const seen: string[][] = [];
    const effect = defineTool({
      name: "effect",
      description: "has side effects",
      input: noArgs,
      execute: (_args, { sessionId }) => {
        seen.push(typesOnDisk(store, sessionId));
        return "done";
      },
    });
    const provider = new ScriptedProvider([
      {
        toolCalls: [
          { name: "effect", arguments: {} },
          { name: "effect", arguments: {} },
        ],
      },
      { text: "finished" },
    ]);
    const agent = createAgent({ provider, model: "scripted:m", store, tools: [effect], clock: fixedClock() });
    const outcome = await agent.send("go");
    expect(outcome).toMatchObject({ reason: { kind: "completed" }, saved: true });
    // First call: the prompt, the assistant message and this call are on disk.
    expect(seen[0]).toContain("assistant/message");
    expect(seen[0]!.at(-1)).toBe("tool/call");
    // Second call: the first call's result is on disk before the second tool runs.
    expect(seen[1]!.filter((t) => t === "tool/result")).toHaveLength(1);
    expect(seen[1]!.at(-1)).toBe("tool/call");
    await agent.dispose();
  });

  test("a read-only tool does not force a flush of its own call; the step still ends durable", async () => {
    const store = new JsonlSessionStore({ root });
    const seen: string[][] = [];
    const look = defineTool({
      name: "look",
      description: "reads only",
      input: noArgs,
      readOnly: true,
      execute: (_args, { sessionId }) => {
        seen.push(typesOnDisk(store, sessionId));
        return "seen";
      },
    });
    const provider = new ScriptedProvider([{ toolCalls: [{ name: "look", arguments: {} }] }, { text: "ok" }]);
    const agent = createAgent({ provider, model: "scripted:m", store, tools: [look], clock: fixedClock() });
    let afterFirstStep: string[] = [];
    agent.hooks.on("llm/stream", async (_payload, next) => {
      afterFirstStep = typesOnDisk(store, agent.session.id);
      return next();
    });
    await agent.send("go");
    expect(seen[0]).not.toContain("tool/call"); // no flush was forced for a read-only call
    expect(afterFirstStep.at(-1)).toBe("step/end"); // the second request saw step 1 durable
    await agent.dispose();
  });
});

describe("a failing store", () => {
  test("a flush that fails ends the turn `not-saved` before the tool runs, and the outcome says so", async () => {
    const flaky = flakyFs();
    const store = new JsonlSessionStore({ root, fs: flaky.fs });
    let ran = 0;
    const effect = defineTool({
      name: "effect",
      description: "has side effects",
      input: noArgs,
      execute: () => {
        ran++;
        return "done";
      },
    });
    const provider2 = new ScriptedProvider([{ toolCalls: [{ name: "effect", arguments: {} }] }, { text: "later" }]);
    const agent2 = createAgent({ provider: provider2, model: "scripted:m", store, tools: [effect] });
    const store2 = store;
    await agent2.flush(); // the session file exists
    ran = 0;
    flaky.failing = true;
    const outcome = await agent2.send("go");
    expect(outcome.reason).toMatchObject({ kind: "error", code: "not-saved" });
    expect(outcome.saved).toBe(false);
    expect(String((outcome.storeError as Error).message)).toContain("ENOSPC");
    expect(ran).toBe(0); // the side-effect tool never ran on a log that could not be saved
    expect(agent2.saved).toBe(false);

    // While the store still fails, new input is refused, not run.
    await expect(agent2.send("again")).rejects.toSatisfy(
      (e: unknown) => e instanceof LoopError && e.code === "not-saved",
    );
    await expect(agent2.flush()).rejects.toThrow(/ENOSPC/);

    // The store recovers: flush() catches up, and everything logged is on disk, in order.
    flaky.failing = false;
    await agent2.flush();
    expect(agent2.saved).toBe(true);
    const onDisk = typesOnDisk(store2, agent2.session.id);
    expect(onDisk).toEqual(agent2.session.events.map((e) => e.type));
    expect(onDisk.at(-1)).toBe("turn/end");
    await agent2.dispose();
  });

  test("a store that recovers by the next send runs that turn normally", async () => {
    const flaky = flakyFs();
    const store = new JsonlSessionStore({ root, fs: flaky.fs });
    const provider = new ScriptedProvider([{ text: "one" }, { text: "two" }]);
    const agent = createAgent({ provider, model: "scripted:m", store });
    await agent.flush();
    flaky.failing = true;
    expect((await agent.send("first")).saved).toBe(false);
    flaky.failing = false;
    const second = await agent.send("second");
    expect(second).toMatchObject({ reason: { kind: "completed" }, saved: true });
    expect(typesOnDisk(store, agent.session.id)).toEqual(agent.session.events.map((e) => e.type));
    await agent.dispose();
  });

  test("without a store, outcomes carry no `saved` and flush() is a no-op", async () => {
    const agent = createAgent({ provider: new ScriptedProvider([{ text: "hi" }]), model: "scripted:m" });
    const outcome = await agent.send("hello");
    expect(outcome.saved).toBeUndefined();
    expect(agent.saved).toBeUndefined();
    await agent.flush();
    await agent.dispose();
  });
});

describe("durability: 'turn'", () => {
  test("flushes only at turn end: a tool with side effects runs before anything of the turn is on disk", async () => {
    const store = new JsonlSessionStore({ root });
    const seen: string[][] = [];
    const effect = defineTool({
      name: "effect",
      description: "has side effects",
      input: noArgs,
      execute: (_args, { sessionId }) => {
        seen.push(typesOnDisk(store, sessionId));
        return "done";
      },
    });
    const provider = new ScriptedProvider([{ toolCalls: [{ name: "effect", arguments: {} }] }, { text: "ok" }]);
    const agent = createAgent({ provider, model: "scripted:m", store, tools: [effect], durability: "turn" });
    const outcome = await agent.send("go");
    expect(seen).toEqual([[]]); // nothing of the turn was durable while the tool ran
    expect(outcome.saved).toBe(true);
    expect(typesOnDisk(store, agent.session.id)).toEqual(agent.session.events.map((e) => e.type));
    await agent.dispose();
  });
});

test("the built-in read-only tools (read, ls, glob, grep) and the skill tool are declared readOnly; write, edit, bash are not", async () => {
  const { builtinToolDefinitions, Workspace } = await import("../../src/builtin-tools/index.js");
  const tools = builtinToolDefinitions({ workspace: new Workspace({ root }) });
  expect(Object.fromEntries(tools.map((t) => [t.name, t.readOnly === true]))).toEqual({
    read: true,
    ls: true,
    glob: true,
    grep: true,
    write: false,
    edit: false,
    bash: false,
  });
});
