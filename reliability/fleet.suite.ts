// fleet: 4 `keelson worker` processes serve sessions × 5 turns each from one PostgreSQL turn
// queue, on the emulator (the test profiles, invariants on), while faults land at about 10% of
// turns: a SIGKILL of a random worker (a new one starts in its place) or pg_terminate_backend of
// all of a random worker's connections. At the end, per session (a trial): every turn finished,
// the log verifies clean (structure + every request reconstructed), every prompt ran exactly once
// (in the log exactly once — done, failed, or interrupted when its worker died mid-turn — in
// queue order), and no request failed the loop's invariant. Rig: fleet-rig.ts; checks:
// fleet-checks.ts. Needs the PostgreSQL server binaries (a throwaway cluster is started) and the
// build (dist/ is rebuilt first when older than src/).
import freshBuild from "../test/support/fresh-build.js";
import { mulberry32 } from "../src/emulator/index.js";
import { type FleetClient, migrateFleet, openFleetClient } from "../src/fleet/index.js";
import { PostgresSessionStore } from "../src/store/postgres/index.js";
import { checkSession } from "./fleet-checks.js";
import { FleetRig } from "./fleet-rig.js";
import { OutcomeCounter, type ReliabilitySuite, type SuiteResult } from "./suite.js";

const WORKERS = 4;
const TURNS = 5;
const FAULT_RATE = 0.1;
const RIG = { workers: WORKERS, concurrency: 4, leaseMs: 1500, latencyMs: 20 };

const describe = (error: unknown): string => (error instanceof Error ? error.message : String(error));

const suite: ReliabilitySuite = {
  name: "fleet",
  checks: `${WORKERS} workers × N sessions × ${TURNS} turns, SIGKILLs and terminated connections at ~10% of turns: logs clean, every prompt exactly once, every request = its reconstruction`,
  fullTrials: 200,
  fastTrials: 6,
  async run({ trials, seed, log }): Promise<SuiteResult> {
    const started = performance.now();
    freshBuild(); // the workers run the built CLI
    const counts = new OutcomeCounter();
    const failures: string[] = [];
    const random = mulberry32(seed);
    const failedTurns: string[] = [];
    const rig = await FleetRig.start(RIG, (url) => migrateFleet({ url }));
    const client = await openFleetClient(rig.database.url);
    try {
      const queued = await enqueueAll(client, trials, seed);
      log?.(`${trials * TURNS} turns queued for ${trials} sessions; ${WORKERS} workers`);
      await runWithFaults(rig, client, trials * TURNS, random, counts, log);
      counts.add("workers started", rig.started);
      for (const line of rig.errors) counts.add(`contained: ${errorKind(line)}`);
      const store = new PostgresSessionStore({ url: rig.database.url });
      try {
        for (let trial = 0; trial < trials; trial++) {
          const sessionId = sessionOf(seed, trial);
          const turns = await Promise.all(queued[trial]!.map((id) => client.turn(id)));
          try {
            const { session } = await store.load(sessionId, { readOnly: true });
            const { problems, kinds, requests } = checkSession({ sessionId, turns }, session.events);
            for (const turn of turns)
              if (turn.status === "failed" && failedTurns.push(`${turn.id}: ${turn.error ?? "?"}`) <= 5)
                log?.(`failed turn ${turn.id} (${sessionId}): ${turn.error ?? "no error recorded"}`);
            for (const kind of kinds) counts.add(kind);
            counts.add("requests verified", requests);
            if (problems.length > 0)
              failures.push(`trial ${trial} (seed ${seed}, ${sessionId}): ${problems.join("; ")}`);
          } catch (error) {
            failures.push(`trial ${trial} (seed ${seed}, ${sessionId}): ${describe(error)}`);
          }
        }
      } finally {
        await store.close();
      }
    } finally {
      await client.close();
      await rig.stop();
    }
    const failedTrials = failures.length;
    for (const crash of rig.crashes) failures.push(`a worker crashed: ${crash}`);
    counts.add("workers crashed", rig.crashes.length);
    if (failures.length > 0 && rig.errors.length > 0)
      log?.(`worker errors (first 5): ${rig.errors.slice(0, 5).join(" | ")}`);
    return {
      suite: suite.name,
      trials,
      passed: trials - failedTrials,
      failures,
      counts: counts.toJSON(),
      ms: performance.now() - started,
    };
  },
};

/** "keelson worker: saving turn 12 (session x): lease-lost: …" → "saving turn: lease-lost". */
const errorKind = (line: string): string => {
  const [where = "", code = ""] = line.replace(/^.*keelson worker: /, "").split(": ");
  return `${where.replace(/ \d+.*$/, "").replace(/ session .*$/, "")}: ${code.replace(/ .*$/, "")}`;
};

const sessionOf = (seed: number, trial: number): string => `fleet-${seed}-${trial}`;

/** Queues every turn, session by session in rounds (turn 1 of every session, then turn 2, …); returns ids per session. */
async function enqueueAll(client: FleetClient, sessions: number, seed: number): Promise<string[][]> {
  const ids: string[][] = Array.from({ length: sessions }, () => []);
  for (let turn = 1; turn <= TURNS; turn++)
    for (let s = 0; s < sessions; s++) {
      const sessionId = sessionOf(seed, s);
      ids[s]!.push(await client.enqueueTurn({ sessionId, prompt: `${sessionId} turn ${turn}`, profile: "echo" }));
    }
  return ids;
}

/** Waits until every turn finished, injecting a fault each time ~1/FAULT_RATE more turns finished. */
async function runWithFaults(
  rig: FleetRig,
  client: FleetClient,
  total: number,
  random: () => number,
  counts: OutcomeCounter,
  log: ((line: string) => void) | undefined,
): Promise<void> {
  const gap = (): number => Math.max(1, Math.round((0.5 + random()) / FAULT_RATE)); // 5..15 turns at 10%
  let nextFault = gap();
  let lastProgress = performance.now();
  let finished = 0;
  let logged = 0;
  while (finished < total) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    const now = await finishedCount(client);
    if (now > finished) lastProgress = performance.now();
    finished = now;
    if (performance.now() - lastProgress > 60_000) {
      log?.(await stallReport(rig, client));
      throw new Error(`no turn finished for 60 s (${finished}/${total} finished)`);
    }
    while (finished >= nextFault && nextFault < total) {
      const slot = Math.floor(random() * rig.slots.length);
      if (random() < 0.5) {
        await rig.kill(slot);
        counts.add("fault: worker SIGKILLed");
      } else {
        const n = await rig.terminateConnections(slot);
        counts.add("fault: connections terminated");
        counts.add("connections terminated", n);
      }
      nextFault += gap();
    }
    if (finished - logged >= Math.max(50, total / 10) || finished === total) {
      log?.(`${finished}/${total} turns finished`);
      logged = finished;
    }
  }
}

/** What the queue, the leases and the workers' connections look like (for a stalled run's report). */
async function stallReport(rig: FleetRig, client: FleetClient): Promise<string> {
  const q = async (text: string): Promise<string> => JSON.stringify((await client.pool.query(text)).rows);
  return [
    `turns by status: ${await q("SELECT status, count(*)::int FROM keelson_turns GROUP BY status")}`,
    `running: ${await q(`SELECT t.id, t.session_id, t.claimed_by, t.start_seq, t.claim_epoch, s.lease_owner, s.lease_epoch, s.lease_expires_at > now() AS live, s.next_seq FROM keelson_turns t JOIN keelson_sessions s ON s.id = t.session_id WHERE t.status = 'running' LIMIT 10`)}`,
    `connections: ${await q("SELECT application_name, state, left(query, 60) AS query, wait_event FROM pg_stat_activity WHERE application_name LIKE 'keelson-worker%' LIMIT 60")}`,
    `worker pids: ${rig.slots.map((s) => s.child.pid).join(", ")}`,
    `worker stderr (last 2000 chars each): ${rig.slots.map((s) => s.stderr.slice(-2000)).join("\n---\n")}`,
  ].join("\n");
}

async function finishedCount(client: FleetClient): Promise<number> {
  const { rows } = await client.pool.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM keelson_turns WHERE status IN ('done', 'failed', 'interrupted')",
  );
  return rows[0]!.n;
}

export default suite;
