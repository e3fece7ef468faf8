// Workers in this process on the emulator: a profile run end to end (queue → claim → agent over
// the stored session → outcome recorded → lease released), many sessions on two workers, failed
// turns, stopping (drain and cancel), and a worker that loses its lease mid-turn noticing it.
import { describe, expect, test } from "vitest";
import { claimTurn } from "../../src/fleet/claim-turn.js";
import { startWorker, type WorkerTurnEvent } from "../../src/fleet/index.js";
import { verifyLog } from "../../src/reconstruct/index.js";
import type { SessionEvent } from "../../src/session/index.js";
import type { PgClient, PgPool } from "../../src/store/postgres/index.js";
import { useFleetDatabase } from "./fleet-harness.js";
import { profiles } from "./fixtures/fleet-profiles.mjs";
import { until } from "../support/until.js";

const database = useFleetDatabase();

/** The texts of a log's user prompts, in order. */
const promptsOf = (events: readonly SessionEvent[]): string[] =>
  events
    .filter((e) => e.type === "user/message")
    .map((e) => (e.data as { content: { type: string; text: string }[] }).content.map((b) => b.text).join(""));

async function storedLog(sessionId: string): Promise<readonly SessionEvent[]> {
  const { session } = await database().store().load(sessionId, { readOnly: true });
  return session.events;
}

describe("a profile run end to end on the emulator", () => {
  test("the turn runs on the profile's agent over the stored session; outcome recorded, log clean, lease released", async () => {
    const events: WorkerTurnEvent[] = [];
    const worker = await database().worker({ profiles, concurrency: 2, onTurn: (e) => events.push(e) });
    const client = await database().client();
    const id = await client.enqueueTurn({ sessionId: "e2e-1", prompt: "hello fleet", profile: "echo" });
    const record = await client.awaitTurn(id, { timeoutMs: 20_000 });
    expect(record).toMatchObject({
      id,
      sessionId: "e2e-1",
      status: "done",
      attempts: 1,
      startSeq: 0,
      claimedBy: worker.id,
      outcome: { turn: 1, reason: "completed", saved: true },
    });
    const log = await storedLog("e2e-1");
    expect(verifyLog(log).issues).toEqual([]);
    expect(promptsOf(log)).toEqual(["hello fleet"]);
    const answer = log.find((e) => e.type === "assistant/message");
    expect(JSON.stringify(answer?.data)).toContain("echo: hello fleet");
    expect(events.map((e) => e.kind)).toEqual(["started", "finished"]);
    await until(async () => {
      const [row] = await database().query("SELECT lease_owner FROM keelson_sessions WHERE id = 'e2e-1'");
      return (row as { lease_owner: string | null }).lease_owner === null;
    }, "the lease to be released");
  });

  test("a second turn resumes the session: the log holds both turns in order, each prompt once", async () => {
    await database().worker({ profiles });
    const client = await database().client();
    const first = await client.enqueueTurn({ sessionId: "e2e-2", prompt: "one", profile: "echo" });
    const second = await client.enqueueTurn({ sessionId: "e2e-2", prompt: "two", profile: "echo" });
    expect((await client.awaitTurn(second, { timeoutMs: 20_000 })).outcome).toMatchObject({ turn: 2 });
    expect((await client.turn(first)).outcome).toMatchObject({ turn: 1 });
    const log = await storedLog("e2e-2");
    expect(promptsOf(log)).toEqual(["one", "two"]);
    expect(verifyLog(log).issues).toEqual([]);
  });

  test("a turn the provider fails is recorded failed with the loop's message; the session's next turn still runs", async () => {
    await database().worker({ profiles });
    const client = await database().client();
    const bad = await client.enqueueTurn({ sessionId: "e2e-fail", prompt: "please [fail]", profile: "echo" });
    const good = await client.enqueueTurn({ sessionId: "e2e-fail", prompt: "then this", profile: "echo" });
    const failed = await client.awaitTurn(bad, { timeoutMs: 20_000 });
    expect(failed).toMatchObject({ status: "failed", outcome: { turn: 1, reason: "error", saved: true } });
    expect(failed.error).toMatch(/asked this request to fail/);
    expect((await client.awaitTurn(good, { timeoutMs: 20_000 })).status).toBe("done");
    expect(promptsOf(await storedLog("e2e-fail"))).toEqual(["please [fail]", "then this"]);
  });
});

test("a profile whose provider factory throws fails the turn with the reason and frees the session", async () => {
  const broken = {
    ...profiles.echo,
    provider: () => {
      throw new Error("no API key for this profile");
    },
  };
  await database().worker({ profiles: { ...profiles, broken } });
  const client = await database().client();
  const bad = await client.enqueueTurn({ sessionId: "e2e-broken", prompt: "never sent", profile: "broken" });
  const good = await client.enqueueTurn({ sessionId: "e2e-broken", prompt: "sent", profile: "echo" });
  const failed = await client.awaitTurn(bad, { timeoutMs: 20_000 });
  expect(failed).toMatchObject({ status: "failed", error: "no API key for this profile" });
  expect(failed.outcome).toBeUndefined();
  expect((await client.awaitTurn(good, { timeoutMs: 20_000 })).outcome).toMatchObject({ turn: 1 });
  expect(promptsOf(await storedLog("e2e-broken"))).toEqual(["sent"]);
});

test("two workers serve 8 sessions × 3 turns: every turn done once, each session's turns in queue order", async () => {
  const a = await database().worker({ profiles, concurrency: 2 });
  const b = await database().worker({ profiles, concurrency: 2 });
  const client = await database().client();
  const ids: { sessionId: string; prompt: string; id: string }[] = [];
  for (let turn = 1; turn <= 3; turn++)
    for (let s = 0; s < 8; s++) {
      const sessionId = `many-${s}`;
      const prompt = `session ${s} turn ${turn}`;
      ids.push({ sessionId, prompt, id: await client.enqueueTurn({ sessionId, prompt, profile: "echo" }) });
    }
  const records = await Promise.all(ids.map(({ id }) => client.awaitTurn(id, { timeoutMs: 60_000 })));
  expect(records.every((r) => r.status === "done" && r.attempts === 1)).toBe(true);
  expect(new Set(records.map((r) => r.claimedBy))).toSatisfy((owners: Set<string | undefined>) =>
    [...owners].every((o) => o === a.id || o === b.id),
  );
  for (let s = 0; s < 8; s++) {
    const log = await storedLog(`many-${s}`);
    expect(verifyLog(log).issues).toEqual([]);
    expect(promptsOf(log)).toEqual([1, 2, 3].map((t) => `session ${s} turn ${t}`));
    const turns = records.filter((r) => r.sessionId === `many-${s}`).map((r) => r.outcome?.turn);
    expect(turns).toEqual([1, 2, 3]);
  }
});

describe("stopping", () => {
  test("stop() drains: a running turn finishes and is recorded, then the worker releases its leases", async () => {
    const started: string[] = [];
    const worker = await startWorker({
      store: database().url,
      profiles: { slow: { ...profiles.echo, provider: slowProvider(300) } },
      pollMs: 50,
      onTurn: (e) => e.kind === "started" && started.push(e.turnId),
    });
    const client = await database().client();
    const id = await client.enqueueTurn({ sessionId: "drain", prompt: "slowly", profile: "slow" });
    await until(async () => started.includes(id), "the turn to start");
    await worker.stop();
    expect(await client.turn(id)).toMatchObject({ status: "done", outcome: { reason: "completed" } });
    const [row] = await database().query("SELECT lease_owner FROM keelson_sessions WHERE id = 'drain'");
    expect(row).toEqual({ lease_owner: null });
  });

  test("stop({ mode: 'cancel' }): a running turn ends aborted in the log and is recorded interrupted", async () => {
    const started: string[] = [];
    const worker = await database().worker({ profiles, onTurn: (e) => e.kind === "started" && started.push(e.turnId) });
    const client = await database().client();
    const id = await client.enqueueTurn({ sessionId: "cancel", prompt: "wait here [park]", profile: "echo" });
    await until(async () => started.includes(id), "the turn to start");
    await worker.stop({ mode: "cancel" });
    expect(await client.turn(id)).toMatchObject({ status: "interrupted", outcome: { turn: 1, reason: "aborted" } });
    const log = await storedLog("cancel");
    expect(verifyLog(log).issues).toEqual([]);
    expect(log.at(-1)).toMatchObject({ type: "turn/end", data: { reason: { kind: "aborted" } } });
  });
});

test("a worker whose lease is taken over mid-turn notices, stops the turn, and records nothing; its appends never land", async () => {
  const events: WorkerTurnEvent[] = [];
  await database().worker({ profiles, leaseMs: 600, onTurn: (e) => events.push(e) });
  const client = await database().client();
  const id = await client.enqueueTurn({ sessionId: "stolen", prompt: "hold on [park]", profile: "echo" });
  // Parked in its tool: the prompt and the call are committed before the tool runs.
  await until(async () => {
    const [row] = await database().query<{ next_seq: string }>(
      "SELECT next_seq::text FROM keelson_sessions WHERE id = 'stolen'",
    );
    return Number(row?.next_seq) > 0 && events.some((e) => e.kind === "started");
  }, "the turn to park in its tool");
  // Its lease lapses (as if it had paused) and another worker takes the session over — in one
  // transaction, so the old worker never sees the lease lapsed and not yet taken (its lease watch,
  // every 200 ms, would give the turn up first on a loaded box, and no take-over would find it).
  const tx = await client.pool.connect();
  let takeover: Awaited<ReturnType<typeof claimTurn>>;
  try {
    await tx.query("BEGIN");
    await tx.query("UPDATE keelson_sessions SET lease_expires_at = now() - interval '1 second' WHERE id = 'stolen'");
    takeover = await claimTurn(withinTransaction(tx), {
      owner: "thief",
      leaseMs: 30_000,
      profiles: ["echo"],
      maxAttempts: 5,
    });
    await tx.query("COMMIT");
  } finally {
    tx.release();
  }
  expect(takeover.repair).toMatchObject({ id, sessionId: "stolen" });
  const [taken] = await database().query<{ next_seq: string }>(
    "SELECT next_seq::text FROM keelson_sessions WHERE id = 'stolen'",
  );
  await until(
    async () => events.some((e) => e.kind === "abandoned" && e.turnId === id),
    "the old worker to give the turn up",
  );
  const [after] = await database().query<{ next_seq: string }>(
    "SELECT next_seq::text FROM keelson_sessions WHERE id = 'stolen'",
  );
  expect(after!.next_seq).toBe(taken!.next_seq); // nothing appended after the take-over
  expect(events.map((e) => e.kind)).toEqual(["started", "abandoned"]);
});

/**
 * A pool whose every statement and transaction runs inside `client`'s open transaction (a
 * transaction of the caller's becomes a savepoint): what the caller's statements changed is seen
 * by the claim, and by no one else until the caller commits.
 */
function withinTransaction(client: PgClient): PgPool {
  const nested: PgClient = {
    query: (text, values) =>
      client.query(
        text === "BEGIN"
          ? "SAVEPOINT nested"
          : text === "COMMIT"
            ? "RELEASE SAVEPOINT nested"
            : text === "ROLLBACK"
              ? "ROLLBACK TO SAVEPOINT nested"
              : text,
        values,
      ),
    release: () => undefined,
    on: () => undefined,
    removeAllListeners: () => undefined,
  };
  return { query: nested.query, connect: async () => nested, end: async () => undefined };
}

/** An emulator provider that answers "slow" after `ms`. */
function slowProvider(ms: number) {
  return async () => {
    const { EmulatorProvider } = await import("../../src/emulator/index.js");
    return new EmulatorProvider({
      model: async () => {
        await new Promise((resolve) => setTimeout(resolve, ms));
        return { text: "slow" };
      },
    });
  };
}
