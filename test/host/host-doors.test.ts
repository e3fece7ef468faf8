// The host's doors for answers and options (found from outside): an answer, a check or a cancel
// for a session the store does not have is `not-found` and creates nothing (it used to leave an
// empty session behind for good); a malformed batch, decision or answer is refused at the door
// with the loop's own error, even while a turn runs (it used to wait its turn, opening the
// session); a misspelt option is refused, not ignored; a clock or onError that is not one is
// refused at construction. `host.cancel` closes a paused turn (open or evicted) or cancels the
// running one; and a prompt to a paused session is the loop's `LoopError('awaiting-approval')`
// whether the session is open or not.
import { readdir } from "node:fs/promises";
import { describe, expect, test } from "vitest";
import { createAgentHost, HostError } from "../../src/host/index.js";
import { ApprovalError, InputError, LoopError } from "../../src/loop/index.js";
import { deployingProfile, GatedModel, profileOf, storedLog, useHostFixture } from "./support.js";

const fixture = useHostFixture();
const ran: string[] = [];

const deploying = deployingProfile(ran);

const files = async (): Promise<string[]> => (await readdir(fixture().root)).sort();

describe("answers and cancels never create a session", () => {
  test("decide, respond, checkAnswers, streamAnswers and cancel on an unknown session: not-found, nothing written", async () => {
    const host = fixture().host({ profile: deploying });
    const decision = { callId: "call_1_1_0", approve: true };
    const refusals = [
      await host.decide("ghost1", "call_1_1_0", { approve: true }).catch((e: unknown) => e),
      await host.respond("ghost2", "call_1_1_0", { value: 1 }).catch((e: unknown) => e),
      await host.checkAnswers("ghost3", { decisions: [decision] }).catch((e: unknown) => e),
      await host.streamAnswers("ghost4", { decisions: [decision] }).outcome.catch((e: unknown) => e),
      await host.cancel("ghost5").catch((e: unknown) => e),
    ];
    for (const error of refusals) expect(error).toMatchObject({ name: "HostError", code: "not-found" });
    expect(await files()).toEqual([]);
    expect(await fixture().store.list()).toEqual([]);
  });
});

describe("an answer's shape is checked at the door", () => {
  test("a malformed batch, decision or answer is refused at once, with the loop's error, while a turn runs", async () => {
    const model = new GatedModel(["busy"]);
    const host = fixture().host({ profile: profileOf(model.provider) });
    const running = host.send("s", "busy");
    await model.called("busy");
    const before = await files();
    expect(() => host.streamAnswers("s", {})).toThrow(LoopError);
    expect(() => host.streamAnswers("s", null as never)).toThrow(expect.objectContaining({ code: "invalid-options" }));
    await expect(host.checkAnswers("s", { decisions: "yes" as never })).rejects.toMatchObject({
      name: "LoopError",
      code: "invalid-options",
    });
    await expect(host.decide("s", "call_1", null as never)).rejects.toBeInstanceOf(ApprovalError);
    await expect(host.decide("s", 7 as never, { approve: true })).rejects.toMatchObject({ code: "unknown-call" });
    await expect(host.respond("s", "q", "eu" as never)).rejects.toBeInstanceOf(InputError);
    await expect(host.cancel("s", 5 as never)).rejects.toMatchObject({ code: "invalid-options" });
    expect(host.stats()).toMatchObject({ running: 1, queued: 0 }); // nothing queued behind the turn
    model.release("busy");
    expect((await running).reason.kind).toBe("completed");
    expect(await files()).toEqual(before);
  });
});

describe("options are checked, not ignored", () => {
  test("an unknown option key is invalid-options naming it; nothing queued or written", async () => {
    const host = fixture().host({ profile: deploying });
    await expect(host.send("s", "hi", { ifbusy: "reject" } as never)).rejects.toThrow(/unknown option "ifbusy"/);
    expect(() => host.stream("s", "hi", { output: 5 } as never)).toThrow(
      expect.objectContaining({ name: "HostError", code: "invalid-options" }),
    );
    await expect(host.follow("s", { form: 1 } as never)).rejects.toMatchObject({ code: "invalid-options" });
    await expect(host.send("s", "hi", "reject" as never)).rejects.toMatchObject({ code: "invalid-options" });
    await expect(host.close({ mod: "cancel" } as never)).rejects.toMatchObject({ code: "invalid-options" });
    await expect(host.close({ mode: "kill" } as never)).rejects.toMatchObject({ code: "invalid-options" });
    expect(await files()).toEqual([]);
  });

  test("a clock or onError that is not one is refused at construction", () => {
    const store = fixture().store;
    expect(() => createAgentHost({ store, profile: deploying, clock: {} as never })).toThrow(HostError);
    expect(() => createAgentHost({ store, profile: deploying, clock: { now: () => 0 } as never })).toThrow(/clock/);
    expect(() => createAgentHost({ store, profile: deploying, onError: "log" as never })).toThrow(/onError/);
  });
});

describe("host.cancel", () => {
  test("closes a paused turn, open or evicted; deciding it after is cancelled; the session takes prompts again", async () => {
    ran.length = 0;
    const host = fixture().host({ profile: deploying, maxOpen: 1 });
    for (const id of ["a", "b"]) expect((await host.send(id, "ship")).reason.kind).toBe("awaiting-approval");
    // b is open, a was evicted (maxOpen 1): both are closed the same way.
    for (const id of ["b", "a"]) {
      const paused = (await host.pending(id)).approvals[0]!;
      await expect(host.send(id, "again")).rejects.toMatchObject({ name: "LoopError", code: "awaiting-approval" });
      await host.cancel(id, "changed my mind");
      const { events, report } = await storedLog(fixture().store, id);
      expect(report.issues).toEqual([]);
      expect(events.at(-1)).toMatchObject({
        type: "turn/end",
        data: { reason: { kind: "aborted", reason: "changed my mind" } },
      });
      expect((await host.pending(id)).approvals).toEqual([]);
      await expect(host.decide(id, paused.callId, { approve: true })).rejects.toMatchObject({ code: "cancelled" });
      expect((await host.send(id, "ship")).reason.kind).toBe("awaiting-approval"); // a new prompt runs
    }
    expect(ran).toEqual([]);
  });

  // Found from outside: the second of two cancels at once dropped the first's close of the pause
  // as a prompt whose agent still opened — the first rejected `cancelled`, the session stayed paused.
  test("two cancels at once of a paused session (a double click on Stop), open or evicted: both resolve, the pause is closed once", async () => {
    ran.length = 0;
    const host = fixture().host({ profile: deploying, maxOpen: 1 });
    for (const id of ["a", "b"]) expect((await host.send(id, "ship")).reason.kind).toBe("awaiting-approval");
    for (const id of ["b", "a"]) {
      const before = (await host.log(id)).length;
      const clicks = [host.cancel(id, "first click"), host.cancel(id, "second click")];
      expect(await Promise.allSettled(clicks)).toEqual([
        { status: "fulfilled", value: undefined },
        { status: "fulfilled", value: undefined },
      ]);
      const { events, report } = await storedLog(fixture().store, id);
      expect(report.issues).toEqual([]);
      const ends = events.slice(before).filter((event) => event.type === "turn/end");
      expect(ends.map((event) => event.data)).toEqual([
        expect.objectContaining({ reason: { kind: "aborted", reason: "first click" } }),
      ]);
      expect((await host.pending(id)).approvals).toEqual([]);
      expect((await host.send(id, "ship")).reason.kind).toBe("awaiting-approval"); // the session takes prompts again
    }
    expect(ran).toEqual([]);
  });

  test("cancels the running turn (aborted, with the reason); an idle session that waits for nothing is left as it is", async () => {
    const model = new GatedModel(["long"]);
    const host = fixture().host({ profile: profileOf(model.provider) });
    expect((await host.send("s", "short")).reason.kind).toBe("completed");
    const length = (await host.log("s")).length;
    await host.cancel("s"); // nothing runs, nothing waits
    expect((await host.log("s")).length).toBe(length);
    const running = host.send("s", "long");
    await model.called("long");
    await host.cancel("s", "stop button");
    expect((await running).reason).toMatchObject({ kind: "aborted", reason: "stop button" });
  });

  // Found in review: a cancel right after the send (its agent still opening) waited behind the
  // prompt and the turn ran to its end; a cancel during a drain was refused as closed.
  test("right after the send (the agent still opening): the prompt is dropped, nothing created", async () => {
    const model = new GatedModel([]);
    const host = fixture().host({ profile: profileOf(model.provider) });
    const sent = host.send("fresh", "hello");
    await host.cancel("fresh", "stop button");
    await expect(sent).rejects.toMatchObject({ name: "HostError", code: "cancelled" });
    expect(model.calls).toEqual([]);
    await host.close();
    expect(await files()).toEqual([]);
  });

  test("while the host drains: the turn holding the drain up is cancelled", async () => {
    const model = new GatedModel(["long"]);
    const host = fixture().host({ profile: profileOf(model.provider) });
    const running = host.send("s", "long");
    await model.called("long");
    const closing = host.close();
    await host.cancel("s", "taking too long");
    expect((await running).reason).toMatchObject({ kind: "aborted", reason: "taking too long" });
    await closing;
  });
});
