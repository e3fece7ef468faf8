// Closing a host (issue #22 §4): `close()` refuses new prompts with HostError('closed'), lets the
// running and queued turns finish, and disposes every agent — flushed and released, so another
// writer can take each session; `mode: 'cancel'` drops the waiting prompts and cancels the
// running turns (they end aborted in the log).
import { expect, test } from "vitest";
import { JsonlSessionStore } from "../../src/store/index.js";
import { GatedModel, profileOf, promptsByTurn, refusal, storedLog, useHostFixture } from "./support.js";

const fixture = useHostFixture();

test("close drains: running and queued turns finish, new prompts are refused, every session is released", async () => {
  const model = new GatedModel(["a"]);
  const host = fixture().host({ profile: profileOf(model.provider) });
  const first = host.send("s1", "a");
  const queued = host.stream("s1", "b");
  const other = host.send("s2", "c");
  await model.called("a");
  const closing = host.close();
  expect(await refusal(() => host.send("s1", "late"))).toMatchObject({ code: "closed" });
  expect(await refusal(() => host.stream("s3", "late"))).toMatchObject({ code: "closed" });
  expect(await refusal(() => host.follow("s1"))).toMatchObject({ code: "closed" });
  model.release("a");
  await closing;
  expect((await first).text).toBe("re: a");
  expect((await queued.outcome).text).toBe("re: b");
  expect((await other).text).toBe("re: c");
  expect(host.stats()).toEqual({ open: 0, running: 0, queued: 0 });
  expect(host.close()).toBe(closing); // idempotent
  // Released: a second writer takes each session, and finds every turn in its log.
  const second = new JsonlSessionStore({ root: fixture().root });
  try {
    const s1 = await second.load("s1");
    expect(promptsByTurn(s1.session.events)).toEqual([["a"], ["b"]]);
    expect(s1.repaired).toEqual([]);
    const s2 = await second.load("s2");
    expect(promptsByTurn(s2.session.events)).toEqual([["c"]]);
  } finally {
    await second.close();
  }
});

test("close({ mode: 'cancel' }): waiting prompts fail HostError('closed') without running, running turns end aborted", async () => {
  const model = new GatedModel(["a"]);
  const host = fixture().host({ profile: profileOf(model.provider) });
  const running = host.send("s1", "a");
  const waiting = refusal(() => host.send("s1", "b"));
  await model.called("a");
  await host.close({ mode: "cancel" });
  expect((await running).reason).toMatchObject({ kind: "aborted", reason: "the agent host is closing" });
  expect(await waiting).toMatchObject({ code: "closed" });
  expect(model.calls).toEqual(["a"]);
  const log = await storedLog(fixture().store, "s1");
  expect(promptsByTurn(log.events)).toEqual([["a"]]);
  expect(log.report.ok).toBe(true);
});

test("stats counts open agents, running turns and waiting prompts", async () => {
  const model = new GatedModel(["a", "x"]);
  const host = fixture().host({ profile: profileOf(model.provider) });
  expect(host.stats()).toEqual({ open: 0, running: 0, queued: 0 });
  const sends = [host.send("s1", "a"), host.send("s1", "b"), host.send("s1", "c"), host.send("s2", "x")];
  await Promise.all([model.called("a"), model.called("x")]);
  expect(host.stats()).toEqual({ open: 2, running: 2, queued: 2 });
  model.release("a");
  model.release("x");
  await Promise.all(sends);
  expect(host.stats()).toEqual({ open: 2, running: 0, queued: 0 });
  await host.close();
  expect(host.stats()).toEqual({ open: 0, running: 0, queued: 0 });
});

test("close({ mode: 'cancel' }) during a drain escalates it: the running turn ends aborted, the waiting prompt fails closed", async () => {
  const model = new GatedModel(["a"]);
  const host = fixture().host({ profile: profileOf(model.provider) });
  const running = host.send("s1", "a");
  const waiting = refusal(() => host.send("s1", "b"));
  await model.called("a");
  const draining = host.close(); // the model holds "a": the drain would wait for it
  const cancelling = host.close({ mode: "cancel" });
  expect(cancelling).toBe(draining); // one close, escalated
  await cancelling;
  expect((await running).reason).toMatchObject({ kind: "aborted", reason: "the agent host is closing" });
  expect(await waiting).toMatchObject({ code: "closed" });
  expect(model.calls).toEqual(["a"]);
  expect(promptsByTurn((await storedLog(fixture().store, "s1")).events)).toEqual([["a"]]);
});
