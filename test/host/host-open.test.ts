// Opening sessions (issue #22 §4): open-or-create by id — a stored session is resumed (its log
// continues), an unknown id is created with that id; bad ids and prompts are refused at the door,
// before the store is touched; which profile a turn runs under.
import { describe, expect, test } from "vitest";
import { createAgentHost, HostError } from "../../src/host/index.js";
import { ScriptedProvider } from "../../src/llm/core.js";
import { createAgent } from "../../src/loop/index.js";
import type { SessionStore } from "../../src/store/index.js";
import { type Deferred, deferred } from "../support/deferred.js";
import { GatedModel, profileOf, promptsByTurn, recordingStore, refusal, storedLog, useHostFixture } from "./support.js";

const fixture = useHostFixture();

describe("open-or-create", () => {
  test("an unknown id is created with that id; a stored session is resumed and its log continues", async () => {
    const model = new GatedModel();
    const earlier = createAgent({
      provider: model.provider,
      model: "scripted:host",
      store: fixture().store,
      sessionId: "stored",
    });
    await earlier.send("before the host");
    await earlier.dispose();
    const host = fixture().host({ profile: profileOf(model.provider) });
    const created = await host.send("fresh", "hello");
    const resumed = await host.send("stored", "again");
    expect([created.turn, resumed.turn]).toEqual([1, 2]);
    await host.close();
    const fresh = await storedLog(fixture().store, "fresh");
    expect(fresh.events[0]?.type).toBe("turn/start"); // the header carries the id; the log starts with the turn
    expect(fresh.report.ok).toBe(true);
    const stored = await storedLog(fixture().store, "stored");
    expect(promptsByTurn(stored.events)).toEqual([["before the host"], ["again"]]);
    expect(stored.report.ok).toBe(true);
    const headers = stored.events
      .filter((e) => e.type === "request/header")
      .map((e) => (e.data as { reason?: string }).reason);
    expect(headers).toEqual(["initial", "resume"]); // the host's agent is a new loop instance
  });

  test("a session the store cannot open fails that prompt with the store's error; the next prompt tries again", async () => {
    const model = new GatedModel();
    const other = createAgent({
      provider: model.provider,
      model: "scripted:host",
      store: fixture().store,
      sessionId: "taken",
    });
    await other.send("holds the writer lock");
    const host = fixture().host({ profile: profileOf(model.provider) });
    await expect(host.send("taken", "refused")).rejects.toMatchObject({ code: "already-open" });
    await other.dispose();
    expect((await host.send("taken", "now")).turn).toBe(2);
  });
});

/** `inner` with its first `load` held until `releaseLoad()`; `started` resolves when it is asked. */
function heldFirstLoad(inner: SessionStore) {
  const loading = deferred();
  const asked = deferred();
  let held = true;
  const { store, calls } = recordingStore(inner, {
    load: async (id, options) => {
      if (held) {
        held = false;
        asked.resolve();
        await loading.promise;
      }
      return inner.load(id, options);
    },
  });
  return { store, calls, started: asked.promise, releaseLoad: () => loading.resolve() };
}

describe("a prompt dropped while its session opens", () => {
  test("creates nothing: the store is asked to load, then the caller cancels, and no session is made", async () => {
    const inner = fixture().store;
    const { store, calls, started, releaseLoad } = heldFirstLoad(inner); // the caller cancels while the store looks the id up
    const host = fixture().host({ store, profile: profileOf(new GatedModel().provider) });
    const controller = new AbortController();
    const sent = host.send("never-made", "hello", { signal: controller.signal });
    await started;
    controller.abort("changed my mind");
    releaseLoad();
    await expect(sent).rejects.toMatchObject({ code: "cancelled" });
    await host.close();
    expect(calls).not.toContain("create");
    expect((await inner.list()).map((s) => s.id)).not.toContain("never-made");
  });
});

describe("a prompt dropped while its session opens frees the session before its caller learns it", () => {
  // Found from outside: `busy` (and `stats().queued`) held until the open finished, so a caller
  // that awaited the drop and sent again with `ifBusy: 'reject'` was refused, 40 times of 40.
  for (const route of ["host.cancel", "signal", "stream.cancel"] as const)
    test(route, async () => {
      const inner = fixture().store;
      const { store, started, releaseLoad } = heldFirstLoad(inner); // the drop lands while the store looks the id up
      const host = fixture().host({
        store,
        profile: profileOf(new ScriptedProvider([], { fallback: { text: "ok" } })),
      });
      const controller = new AbortController();
      const first =
        route === "stream.cancel"
          ? host.stream("opening", "a")
          : host.send("opening", "a", route === "signal" ? { signal: controller.signal } : {});
      const settled = ("outcome" in first ? first.outcome : first).then(
        () => "ran",
        (error: unknown) => (error as { code?: string }).code,
      );
      await started;
      let next: Promise<{ reason: { kind: string } }>;
      try {
        if (route === "host.cancel") await host.cancel("opening");
        else if (route === "signal") controller.abort("changed my mind");
        else (first as { cancel: (reason?: string) => void }).cancel("changed my mind");
        expect(await settled).toBe("cancelled");
        expect(host.stats()).toMatchObject({ queued: 0 });
        next = host.send("opening", "b", { ifBusy: "reject" }); // before the open has finished
      } finally {
        releaseLoad(); // a failed check must not leave the open hanging
      }
      expect((await next).reason.kind).toBe("completed");
      await host.close();
      expect(promptsByTurn((await storedLog(inner, "opening")).events)).toEqual([["b"]]);
    });
});

test("a prompt dropped while its agent waits for the previous one's dispose: the agent opened for nothing stays the host's", async () => {
  // Review of the fix above: the slot, no longer busy, was forgotten when the dispose ended while
  // the drain went on to open the session — an agent no host could reach held the writer lock.
  const inner = fixture().store;
  let gate: { asked: Deferred<void>; release: Deferred<void>; loaded: Deferred<void> } | undefined;
  const { store } = recordingStore(inner, {
    release: async (id) => {
      const held = gate;
      held?.asked.resolve();
      await held?.release.promise; // p1's agent is disposed, and its session released, only when the test says
      return inner.release(id);
    },
    load: async (id, options) => {
      const loaded = await inner.load(id, options);
      gate?.loaded.resolve(); // the drain opened the session again, for the dropped prompt
      return loaded;
    },
  });
  const profile = () => profileOf(new ScriptedProvider([], { fallback: { text: "ok" } }));
  const host = fixture().host({ store, profiles: { p1: profile(), p2: profile() } });
  expect((await host.send("s", "a", { profile: "p1" })).reason.kind).toBe("completed");
  gate = { asked: deferred(), release: deferred(), loaded: deferred() };
  const controller = new AbortController();
  const dropped = host.send("s", "b", { profile: "p2", signal: controller.signal }); // p1's agent is disposed first
  await gate.asked.promise; // the drain waits in agentFor for that dispose, with b under way
  controller.abort("changed my mind");
  await expect(dropped).rejects.toMatchObject({ code: "cancelled" });
  gate.release.resolve();
  await gate.loaded.promise; // the writer lock is the drain's agent's now
  expect((await host.send("s", "c", { profile: "p1" })).reason.kind).toBe("completed");
  expect(host.stats()).toMatchObject({ open: 1 });
  await host.close();
  expect(promptsByTurn((await storedLog(inner, "s")).events)).toEqual([["a"], ["c"]]);
});

describe("refused at the door", () => {
  test("unsafe or non-string session ids: HostError('invalid-id') before the store is touched", async () => {
    const { store, calls } = recordingStore(fixture().store);
    const host = fixture().host({ store, profile: profileOf(new ScriptedProvider()) });
    for (const id of ["../escape", "a/b", "", ".hidden", "x".repeat(300), "nul\u0000", 42, undefined]) {
      const sent = await refusal(() => host.send(id as string, "hi"));
      expect(sent).toBeInstanceOf(HostError);
      expect(sent).toMatchObject({ code: "invalid-id" });
      expect(await refusal(() => host.stream(id as string, "hi"))).toMatchObject({ code: "invalid-id" });
      expect(await refusal(() => host.follow(id as string))).toMatchObject({ code: "invalid-id" });
    }
    expect(calls).toEqual([]);
    expect(host.stats()).toEqual({ open: 0, running: 0, queued: 0 });
  });

  test("a prompt that is not text or content parts: HostError('invalid-prompt'), nothing queued", async () => {
    const host = fixture().host({ profile: profileOf(new ScriptedProvider()) });
    const refused = [undefined, 42, { text: "hi" }, "", "  \n", [], [{ type: "text" }], [{ type: "text", text: " " }]];
    for (const prompt of refused as unknown[]) {
      expect(await refusal(() => host.stream("s", prompt as string))).toMatchObject({ code: "invalid-prompt" });
      expect(await refusal(() => host.send("s", prompt as string))).toMatchObject({ code: "invalid-prompt" });
    }
    expect(host.stats()).toEqual({ open: 0, running: 0, queued: 0 });
    expect(await fixture().store.list()).toEqual([]); // no session file was created for any of them
  });

  test("a prompt that alone could never fit the model's window: HostError('prompt-too-large') at the door, nothing queued or created", async () => {
    // The profile's provider knows its model's window: 1,000 tokens (refused over 1,250 estimated).
    const provider = Object.assign(new ScriptedProvider([], { fallback: { text: "ok" } }), {
      contextWindow: () => 1_000,
    });
    const host = fixture().host({ profile: profileOf(provider) });
    const huge = "x".repeat(6_000);
    for (const run of [() => host.stream("s", huge), () => host.send("s", huge)]) {
      const error = await refusal(run);
      expect(error).toBeInstanceOf(HostError);
      expect(error).toMatchObject({
        code: "prompt-too-large",
        message: expect.stringMatching(
          /^the prompt for session s is about 1,500 tokens \(estimated\), far over the 1,000-token/,
        ),
      });
    }
    expect(host.stats()).toEqual({ open: 0, running: 0, queued: 0 });
    expect(await fixture().store.list()).toEqual([]);
    // Once the session is open, the open agent's model is the one checked; the session goes on.
    expect((await host.send("s", "hello")).reason.kind).toBe("completed");
    expect(await refusal(() => host.send("s", huge))).toMatchObject({ code: "prompt-too-large" });
    expect((await host.send("s", "again")).turn).toBe(2);
    expect(provider.requests).toHaveLength(2);
  });

  test("behind a queued prompt that switches profile, a prompt is checked against the model it switches to", async () => {
    const model = new GatedModel(["held"]);
    const small = Object.assign(new ScriptedProvider([], { fallback: { text: "ok" } }), { contextWindow: () => 1_000 });
    const big = Object.assign(model.provider, { contextWindow: () => 1_000_000 });
    const host = fixture().host({ profiles: { default: profileOf(big), small: profileOf(small) } });
    const running = host.send("p", "held");
    await model.called("held"); // open under the big window, its turn running
    const switching = host.send("p", "now small", { profile: "small" });
    expect(() => host.stream("p", "x".repeat(6_000))).toThrow(expect.objectContaining({ code: "prompt-too-large" }));
    const named = host.stream("p", "x".repeat(6_000), { profile: "default" }); // back to the big window: taken
    named.cancel("not needed"); // dropped while it waits
    model.release("held");
    expect((await running).reason.kind).toBe("completed");
    expect((await switching).reason.kind).toBe("completed");
  });

  test("a profile whose provider is a factory: the agent's own door refuses it (LoopError), and nothing is logged", async () => {
    const provider = Object.assign(new ScriptedProvider([], { fallback: { text: "ok" } }), {
      contextWindow: () => 1_000,
    });
    const host = fixture().host({ profile: { ...profileOf(provider), provider: () => provider } });
    expect((await host.send("f", "hello")).turn).toBe(1);
    expect(await refusal(() => host.send("f", "x".repeat(6_000)))).toMatchObject({ code: "prompt-too-large" });
    expect((await host.send("f", "again")).turn).toBe(2);
    await host.close();
    expect(promptsByTurn((await storedLog(fixture().store, "f")).events)).toEqual([["hello"], ["again"]]);
  });

  test("stream options that would lift the bound or fail later: HostError('invalid-options'), nothing queued", async () => {
    const host = fixture().host({ profile: profileOf(new ScriptedProvider()) });
    for (const options of [{ maxBufferedChars: Number.NaN }, { maxBufferedChars: "1000000" }, { signal: "nope" }]) {
      const bad = options as { maxBufferedChars?: number };
      expect(await refusal(() => host.stream("s", "hi", bad))).toMatchObject({ code: "invalid-options" });
      expect(await refusal(() => host.follow("s", bad))).toMatchObject({ code: "invalid-options" });
    }
    expect(host.stats()).toEqual({ open: 0, running: 0, queued: 0 });
  });

  test("bad host options: HostError('invalid-options' | 'invalid-profile')", async () => {
    const store = fixture().store;
    const profile = profileOf(new ScriptedProvider());
    expect(await refusal(() => createAgentHost({ store }))).toMatchObject({ code: "invalid-options" });
    expect(await refusal(() => createAgentHost({ store, profile, maxOpen: 0 }))).toMatchObject({
      code: "invalid-options",
    });
    expect(await refusal(() => createAgentHost({ store, profile, idleMs: -1 }))).toMatchObject({
      code: "invalid-options",
    });
    expect(await refusal(() => createAgentHost({ store, profile, profiles: { default: profile } }))).toMatchObject({
      code: "invalid-options",
    });
    // The value as given — not JSON's `null` for NaN and Infinity.
    for (const [idleMs, shown] of [
      [Number.NaN, "NaN"],
      [Number.NEGATIVE_INFINITY, "-Infinity"],
      ["5", '"5"'],
    ] as const)
      expect(await refusal(() => createAgentHost({ store, profile, idleMs: idleMs as number }))).toMatchObject({
        code: "invalid-options",
        message: `idleMs must be a number > 0, got ${shown}`,
      });
    expect(await refusal(() => createAgentHost({ store, profile, maxOpen: Number.POSITIVE_INFINITY }))).toMatchObject({
      message: "maxOpen must be an integer ≥ 1, got Infinity",
    });
    const noModel = { provider: profile.provider, model: "" };
    expect(await refusal(() => createAgentHost({ store, profiles: { a: noModel } }))).toMatchObject({
      code: "invalid-profile",
    });
  });
});

describe("profiles", () => {
  test("a prompt names its profile; without one a new session gets `default`, an open one keeps its own", async () => {
    const fast = new ScriptedProvider([], { fallback: { text: "fast" } });
    const slow = new ScriptedProvider([], { fallback: { text: "slow" } });
    const host = fixture().host({ profile: profileOf(slow), profiles: { fast: profileOf(fast) } });
    expect((await host.send("a", "hi")).text).toBe("slow");
    expect((await host.send("b", "hi", { profile: "fast" })).text).toBe("fast");
    expect((await host.send("b", "again")).text).toBe("fast"); // open with `fast`
    expect((await host.send("b", "switch", { profile: "default" })).text).toBe("slow"); // reopened under `default`
    await expect(host.send("a", "hi", { profile: "nope" })).rejects.toMatchObject({ code: "unknown-profile" });
    await host.close();
    const b = await storedLog(fixture().store, "b");
    expect(b.report.ok).toBe(true);
    expect(promptsByTurn(b.events)).toEqual([["hi"], ["again"], ["switch"]]);
  });

  test("several profiles and no `default`: a prompt for a session that is not open must name one", async () => {
    const provider = new ScriptedProvider([], { fallback: { text: "ok" } });
    const host = fixture().host({ profiles: { a: profileOf(provider), b: profileOf(provider) } });
    await expect(host.send("s", "hi")).rejects.toMatchObject({ code: "unknown-profile" });
    expect((await host.send("s", "hi", { profile: "a" })).turn).toBe(1);
    expect((await host.send("s", "more")).turn).toBe(2); // open: it keeps `a`
  });
});
