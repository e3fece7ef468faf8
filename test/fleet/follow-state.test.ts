// LeaseJudge (follow-state.ts): what a follower makes of a running turn's lease and of the
// workers' liveness locks (decision 0040) — pure, on the follower's clock.
import { expect, test } from "vitest";
import { type FollowedTurn, type FollowState, LeaseJudge } from "../../src/fleet/follow-state.js";

const turn: FollowedTurn = { id: "7", status: "running", attempts: 1, startSeq: 0, outcome: null, error: null };

function state(over: Partial<FollowState>): FollowState {
  return {
    sessionId: "s",
    nextSeq: 3,
    leased: true,
    expiresInMs: 25_000,
    leaseMs: 30_000,
    ownerLive: true,
    liveWorkers: null,
    turns: [turn],
    ...over,
  };
}

test("a live lease of a live worker is alive, looked at again within the dead-worker grace, not only at its expiry", () => {
  const judge = new LeaseJudge();
  expect(judge.judge(turn, state({}), 0)).toEqual({ kind: "alive", recheckMs: 5000 });
  expect(judge.judge(turn, state({ expiresInMs: 1000 }), 10)).toEqual({ kind: "alive", recheckMs: 1050 });
  // An owner that is no registered worker: judged by its lease alone.
  expect(judge.judge(turn, state({ ownerLive: null, liveWorkers: 2 }), 20)).toEqual({
    kind: "alive",
    recheckMs: 25_050,
  });
});

test("a live lease whose worker lost its liveness lock is suspect while other workers live (they recover it), never lost", () => {
  const judge = new LeaseJudge();
  for (const now of [0, 1000, 5000, 20_000])
    expect(judge.judge(turn, state({ ownerLive: false, liveWorkers: 1 }), now)).toEqual({
      kind: "suspect",
      recheckMs: 1000,
    });
});

test("with no worker alive for the grace, the turn is lost at once, not after two leases; a worker coming back resets it", () => {
  const judge = new LeaseJudge();
  const orphaned = state({ ownerLive: false, liveWorkers: 0 });
  expect(judge.judge(turn, orphaned, 0).kind).toBe("suspect");
  expect(judge.judge(turn, orphaned, 4000).kind).toBe("suspect");
  expect(judge.judge(turn, state({ ownerLive: false, liveWorkers: 1 }), 4500).kind).toBe("suspect"); // one started
  expect(judge.judge(turn, orphaned, 6000).kind).toBe("suspect"); // counted again from here
  const lost = judge.judge(turn, orphaned, 11_000);
  expect(lost.kind).toBe("lost");
  expect(lost).toMatchObject({
    message: expect.stringMatching(/^turn 7 \(attempt 1\) .*no worker is alive to recover it/),
  });
  // The same holds for a lapsed lease: no worker will recover it.
  const lapsed = new LeaseJudge();
  const gone = state({ leased: false, expiresInMs: -10, ownerLive: null, liveWorkers: 0 });
  expect(lapsed.judge(turn, gone, 0)).toEqual({ kind: "lapsed", recheckMs: 1000 });
  expect(lapsed.judge(turn, gone, 5000).kind).toBe("lost");
});

test("a shorter deadAfterMs (the client's option) shortens the looks and the no-worker verdict alike", () => {
  const judge = new LeaseJudge(500);
  expect(judge.judge(turn, state({}), 0)).toEqual({ kind: "alive", recheckMs: 500 });
  const orphaned = state({ ownerLive: false, liveWorkers: 0 });
  expect(judge.judge(turn, orphaned, 100)).toEqual({ kind: "suspect", recheckMs: 100 });
  expect(judge.judge(turn, orphaned, 599).kind).toBe("suspect");
  expect(judge.judge(turn, orphaned, 600).kind).toBe("lost");
});

test("a lapsed lease with workers alive waits one lease for their recovery, then is lost; a new attempt starts over", () => {
  const judge = new LeaseJudge();
  const lapsed = state({ leased: false, expiresInMs: -10, ownerLive: null, liveWorkers: 3 });
  expect(judge.judge(turn, lapsed, 0)).toEqual({ kind: "lapsed", recheckMs: 30_050 });
  expect(judge.judge(turn, lapsed, 29_000)).toEqual({ kind: "lapsed", recheckMs: 1050 });
  expect(judge.judge({ ...turn, attempts: 2 }, lapsed, 31_000)).toEqual({ kind: "lapsed", recheckMs: 30_050 });
  expect(judge.judge({ ...turn, attempts: 2 }, lapsed, 61_000)).toMatchObject({
    kind: "lost",
    message: expect.stringContaining("no worker has recovered it within a lease (30000 ms)"),
  });
});
