// startWorker: `concurrency` slots, each claiming the next turn (claim-turn.ts) and running it
// (run-turn.ts) until stopped; an idle slot waits (idle-slots.ts) until an enqueue of one of the
// worker's profiles wakes it — one slot per enqueue, not all — or the worker's poll (a dead
// worker's lease lapsing sends no notification, so polling finds it). Sessions are loaded
// through one PostgresSessionStore per worker whose lease owner is the worker's id — the owner
// the claim takes each lease for, so the store's writable load keeps the claim's epoch — and
// whose heartbeat keeps the leases of running turns alive. The notification connection also
// LISTENs on the follow channel: a client's announcement starts the publication of the turn the
// worker runs in that session (turn-publication.ts, decision 0016). The queue itself is heard on
// QUEUE_CHANNEL (enqueues and claims only) and only while a slot may claim: a worker whose every
// slot runs a turn UNLISTENs at the first notification it hears, and a slot about to wait LISTENs
// again and claims once more before it sleeps (nothing enqueued meanwhile is missed). A busy
// worker is thus not woken by the rest of the fleet's turns (#20 F21, decision 0030).
import { hostname } from "node:os";
import { randomUUID } from "node:crypto";
import { previewJson } from "../json/index.js";
import { type Agent, type AgentProfile, profileProblem } from "../loop/index.js";
import { checkSchema, PostgresSessionStore } from "../store/postgres/index.js";
import { retryConnection } from "../store/postgres/transient.js";
import { type ClaimOptions, type ClaimResult, claimTurn, type PreferredSession } from "./claim-turn.js";
import { checkFleetSchema } from "./fleet-schema.js";
import { fleetDbError, type OpenedPool, openPool } from "./fleet-pool.js";
import { LeaseWatch } from "./lease-watch.js";
import { DEFAULT_DEAD_AFTER_MS, sweepWorkers, WorkerLiveness } from "./worker-liveness.js";
import { closeAdopted, runClaimedTurn, type TurnRunnerContext } from "./run-turn.js";
import { ClaimRace } from "./claim-race.js";
import { type FollowSeal, loadFollowSeal } from "./follow-seal.js";
import { FOLLOW_CHANNEL } from "./follow-wire.js";
import { Publications } from "./turn-publication.js";
import { IdleSlots, type WakeReason } from "./idle-slots.js";
import { parseTurnPayload, TurnNotifications } from "./turn-notifications.js";
import { QUEUE_CHANNEL, UNSERVED_QUEUED } from "./turn-queries.js";
import { FleetError, type StopOptions, type Worker, type WorkerOptions, type WorkerTurnEvent } from "./types.js";

/** Starts a worker on a migrated database; resolves once its connections and schemas are checked. */
export async function startWorker(options: WorkerOptions): Promise<Worker> {
  const settings = checkOptions(options);
  const opened = await openPool(options.store, {
    max: settings.concurrency * 2 + 4, // + 1: the connection followed turns are published on; + 1: the liveness lock's
    applicationName: `keelson-worker ${settings.id}`,
  });
  const liveness = new WorkerLiveness(
    opened.pool,
    settings.id,
    (error, what) => {
      try {
        options.onError?.(fleetDbError(error, opened.label, what), "liveness");
      } catch {
        // a throwing logger must not stop the worker
      }
    },
    Object.keys(options.profiles),
  );
  // A database restarting as the worker starts (or a dropped connection) is waited out.
  const checked = await retryConnection({ forMs: settings.waitForDatabaseMs }, async () => {
    await checkSchema(opened.pool, opened.label);
    await checkFleetSchema(opened.pool, opened.label);
    const seal = await loadFollowSeal(opened.pool);
    await liveness.start(); // registered and locked before the first claim: it may take a lease
    return seal;
  });
  if (!checked.ok) {
    await liveness.stop();
    await opened.close();
    throw fleetDbError(checked.error, opened.label, "checking the schema");
  }
  const worker = new FleetWorker(opened, settings, options, checked.value, liveness);
  await worker.reportUnserved(); // before any slot claims: startWorker resolves before a turn starts
  await worker.hear(); // before the slots' first claims: they need not look twice
  worker.start();
  return worker;
}

/**
 * A session this worker served lately goes ahead of turns queued less than this before its own
 * (PICK_SESSION): its log is loaded here already (bounded unfairness, never starvation).
 */
const SESSION_AFFINITY_MS = 1000;
/** How many recently served sessions a worker prefers (the store keeps as many logs: knownSessions). */
const PREFERRED_SESSIONS = 64;
/**
 * How often, at most, a worker's claims look for orphans (running turns whose lease lapsed): the
 * search reads every running turn of the fleet (decision 0034), so it runs on this timer, or
 * every lease period when that is shorter, not on every claim. An orphan waits its lease out
 * first anyway; this adds at most one period, or one poll when nothing wakes the worker.
 */
const ORPHAN_SEARCH_MS = 1000;

interface Settings {
  readonly id: string;
  readonly concurrency: number;
  readonly leaseMs: number;
  readonly deadAfterMs: number;
  readonly pollMs: number;
  readonly maxAttempts: number;
  readonly waitForDatabaseMs: number;
}

function checkOptions(options: WorkerOptions): Settings {
  const positive = (name: string, value: number | undefined, fallback: number, min = 1): number => {
    const v = value ?? fallback;
    if (!Number.isSafeInteger(v) || v < min)
      throw new FleetError("invalid-options", `${name} must be an integer ≥ ${min}, got ${String(value)}`);
    return v;
  };
  const names = Object.keys(options.profiles ?? {});
  if (names.length === 0) throw new FleetError("invalid-options", "a worker needs at least one profile");
  for (const name of names) checkProfile(name, options.profiles[name]);
  return {
    id:
      options.workerId === undefined
        ? `${hostname()}/${process.pid}/${randomUUID().slice(0, 8)}`
        : workerId(options.workerId),
    concurrency: positive("concurrency", options.concurrency, 1),
    leaseMs: positive("leaseMs", options.leaseMs, 30_000, 3),
    deadAfterMs: positive("deadAfterMs", options.deadAfterMs, DEFAULT_DEAD_AFTER_MS, 100),
    pollMs: positive("pollMs", options.pollMs, 1000),
    maxAttempts: positive("maxAttempts", options.maxAttempts, 5),
    waitForDatabaseMs: positive("waitForDatabaseMs", options.waitForDatabaseMs, 30_000, 0),
  };
}

/**
 * A worker id as given: printable ASCII without spaces, 1–200 characters (it names the worker's
 * row, its leases and its connections, and is printed to operators). Checked before anything is
 * connected or written (found from outside: "" threw an untyped TypeError after a row was
 * written, and the process never exited).
 */
function workerId(id: unknown): string {
  if (typeof id === "string" && /^[\x21-\x7e]{1,200}$/.test(id)) return id;
  throw new FleetError(
    "invalid-options",
    `workerId must be 1–200 printable ASCII characters without spaces, got ${previewJson(id, 60)}`,
  );
}

function checkProfile(name: string, profile: AgentProfile | undefined): void {
  const problem = profileProblem(name, profile);
  if (problem !== undefined) throw new FleetError("invalid-profile", `profile ${JSON.stringify(name)} ${problem}`);
}

class FleetWorker implements Worker {
  readonly id: string;
  readonly #opened: OpenedPool;
  readonly #settings: Settings;
  readonly #options: WorkerOptions;
  readonly #notifications: TurnNotifications;
  readonly #leases: LeaseWatch;
  readonly #liveness: WorkerLiveness;
  readonly #agents = new Set<Agent>();
  readonly #stores: PostgresSessionStore[] = [];
  readonly #idleSlots: IdleSlots;
  readonly #race: ClaimRace;
  readonly #publications: Publications;
  /**
   * The claim in flight, if any: a worker's slots claim one at a time. Two slots that finished
   * together would otherwise both pick the same preferred session (PICK_SESSION's affine branch
   * offers one), and the one that lost its lock took the oldest head anywhere — usually a
   * session another worker holds, a whole-log load here (decision 0039).
   */
  #claiming: Promise<unknown> = Promise.resolve();
  /** Sessions served lately, oldest first: preferred while the store holds their logs as stored (#preferred). */
  readonly #served = new Set<string>();
  /** When this worker's claims last looked for orphans (performance.now()). */
  #orphansSearchedAt = Number.NEGATIVE_INFINITY;
  /** Profile names already reported to onUnserved. */
  readonly #unservedSeen = new Set<string>();
  #store: PostgresSessionStore;
  #slots: Promise<void>[] = [];
  #stopping: Promise<void> | undefined;
  #stopped = false;
  #cancelling = false;
  #running = 0;
  /** The QUEUE_CHANNEL subscription: resolves once LISTENed (undefined: not listening). */
  #hearing: Promise<(() => void) | undefined> | undefined;
  /** Counts the LISTENs of QUEUE_CHANNEL confirmed: a slot whose claim began before the latest one claims again before it waits. */
  #heard = 0;
  /** Whether QUEUE_CHANNEL is LISTENed (confirmed) now. */
  #hearingNow = false;

  constructor(
    opened: OpenedPool,
    settings: Settings,
    options: WorkerOptions,
    seal: FollowSeal,
    liveness: WorkerLiveness,
  ) {
    this.id = settings.id;
    this.#liveness = liveness;
    this.#opened = opened;
    this.#settings = settings;
    this.#options = options;
    this.#idleSlots = new IdleSlots(settings.pollMs);
    this.#notifications = new TurnNotifications(opened.pool, { turns: false });
    this.#race = new ClaimRace(settings.id, () => this.#idleSlots.announce());
    this.#publications = new Publications(opened.pool, (error, where) => this.#onError(error, where), seal);
    // Announcements are heard once the connection is up (an idle slot opens it before it waits).
    this.#notifications.subscribeChannel(FOLLOW_CHANNEL, (payload) => this.#publications.hear(payload));
    this.#leases = new LeaseWatch(opened.pool, settings.id, settings.leaseMs);
    this.#store = this.#newStore();
  }

  get running(): number {
    return this.#running;
  }

  start(): void {
    void this.#notifications.listening(); // up before the first claim: a busy worker hears follow announcements too
    for (let i = 0; i < this.#settings.concurrency; i++) this.#slots.push(this.#slot());
  }

  #newStore(): PostgresSessionStore {
    const store = new PostgresSessionStore({
      pool: this.#opened.pool,
      owner: this.id,
      leaseMs: this.#settings.leaseMs,
    });
    this.#stores.push(store);
    return store;
  }

  #context(): TurnRunnerContext {
    return {
      pool: this.#opened.pool,
      owner: this.id,
      leaseMs: this.#settings.leaseMs,
      profiles: this.#options.profiles,
      store: () => this.#store,
      storeStuck: (store) => {
        if (store !== this.#store) return;
        this.#store = this.#newStore(); // later turns use a clean one (which holds no log yet)
        this.#served.clear();
      },
      leases: this.#leases,
      publications: this.#publications,
      agents: this.#agents,
      cancelling: () => this.#cancelling,
      report: (event) => this.#report(event),
      onError: (error, where) => this.#onError(error, where),
    };
  }

  async #slot(): Promise<void> {
    const context = this.#context();
    const claim = () => ({
      owner: this.id,
      leaseMs: this.#settings.leaseMs,
      profiles: Object.keys(this.#options.profiles),
      maxAttempts: this.#settings.maxAttempts,
      preferred: this.#preferred(),
      affinityMs: SESSION_AFFINITY_MS,
      orphans: this.#orphanSearchDue(),
      // The claim committed; only its notification was lost (the other workers' poll covers it).
      onNotifyError: (error: unknown) =>
        this.#onError(fleetDbError(error, this.#opened.label, "notifying a claim"), "claim"),
    });
    let woken: WakeReason | undefined;
    while (!this.#stopped) {
      const mark = this.#idleSlots.mark();
      const heardAt = this.#hearingNow ? this.#heard : -1;
      let result: ClaimResult;
      try {
        result = await this.#claimAfterSiblings(claim);
      } catch (error) {
        this.#onError(fleetDbError(error, this.#opened.label, "claiming a turn"), "claim");
        woken = await this.#idle(mark, heardAt);
        continue;
      }
      for (const r of result.recovered)
        this.#report({ kind: "recovered", turnId: r.id, sessionId: r.sessionId, status: r.status });
      // Work nobody announced (found by the poll, or by a slot that just finished a turn) may
      // come with more: one more slot looks. Announced work wakes its own slot.
      if (woken !== "announced" && result.found) this.#idleSlots.wakeOne();
      woken = undefined;
      const work = result.claimed ?? result.repair;
      if (work !== undefined) {
        this.#running++;
        try {
          if (result.claimed !== undefined) await runClaimedTurn(context, result.claimed);
          else await closeAdopted(context, result.repair!);
        } catch (error) {
          this.#onError(error, `turn ${work.id}`); // run-turn contains its failures; this is a bug's last net
        } finally {
          this.#running--;
        }
        this.#servedNow(work.sessionId);
        // This slot claims again at once: the session's next turn, now claimable, is found by it.
      } else if (!result.found) {
        woken = await this.#idle(mark, heardAt);
      }
    }
  }

  /** Claims once the worker's claim in flight, if any, has settled; `options` are taken then (what the sibling served counts). */
  #claimAfterSiblings(options: () => ClaimOptions): Promise<ClaimResult> {
    const claim = this.#claiming.then(async () => {
      const taken = options();
      if (taken.orphans === true) await this.#sweep(); // dead workers' leases end first: their turns are orphans now
      return await claimTurn(this.#opened.pool, taken);
    });
    this.#claiming = claim.catch(() => undefined);
    return claim;
  }

  /** Ends the leases of workers dead for `deadAfterMs` (worker-liveness.ts); a failure is reported, and the claim goes on. */
  async #sweep(): Promise<void> {
    try {
      await sweepWorkers(this.#opened.pool, this.#settings.deadAfterMs); // their turns are reported as recovered
    } catch (error) {
      this.#onError(fleetDbError(error, this.#opened.label, "sweeping dead workers"), "claim");
    }
  }

  /** Tells `onUnserved` (once per profile name) that turns wait under a profile this worker does not serve. */
  #unserved(profile: string, turnId: string): void {
    if (this.#options.onUnserved === undefined || this.#unservedSeen.has(profile)) return;
    this.#unservedSeen.add(profile);
    try {
      this.#options.onUnserved(profile, turnId);
    } catch (error) {
      this.#onError(error, "onUnserved");
    }
  }

  /** The turns already queued under profiles this worker does not serve, for `onUnserved`. */
  async reportUnserved(): Promise<void> {
    if (this.#options.onUnserved === undefined) return;
    try {
      const { rows } = await this.#opened.pool.query<{ profile: string; id: string }>(UNSERVED_QUEUED, [
        Object.keys(this.#options.profiles),
      ]);
      for (const row of rows) this.#unserved(row.profile, row.id);
    } catch (error) {
      this.#onError(fleetDbError(error, this.#opened.label, "looking for unserved turns"), "start");
    }
  }

  /** Whether this claim looks for orphans: once per ORPHAN_SEARCH_MS (or lease period) across the worker's slots. */
  #orphanSearchDue(): boolean {
    const now = performance.now();
    // A tenth early counts as due: a poll of the same period that wakes a hair early must not skip to the next.
    if (now - this.#orphansSearchedAt < Math.min(ORPHAN_SEARCH_MS, this.#settings.leaseMs) * 0.9) return false;
    this.#orphansSearchedAt = now;
    return true;
  }

  /** The sessions served lately whose logs the store still holds, with their lengths (PICK_SESSION's affinity). */
  #preferred(): PreferredSession[] {
    const preferred: PreferredSession[] = [];
    for (const sessionId of this.#served) {
      const nextSeq = this.#store.knownLength(sessionId);
      if (nextSeq !== undefined) preferred.push({ sessionId, nextSeq });
    }
    return preferred;
  }

  #servedNow(sessionId: string): void {
    this.#served.delete(sessionId);
    this.#served.add(sessionId);
    if (this.#served.size > PREFERRED_SESSIONS) this.#served.delete(this.#served.values().next().value!);
  }

  /**
   * Waits for work announced since `mark`, the worker's poll, or stop — once the queue is heard:
   * when it was not when the slot's claim began (`heardAt`), returns at once ("more": the slot
   * claims again, finding what was enqueued while nobody here listened).
   */
  async #idle(mark: number, heardAt: number): Promise<WakeReason> {
    if (this.#stopped) return "closed";
    await this.#notifications.listening();
    if (await this.hear()) {
      if (this.#stopped) return "closed";
      if (heardAt !== this.#heard) return "more";
    }
    return this.#idleSlots.wait(mark);
  }

  /** LISTENs on QUEUE_CHANNEL unless it is; resolves whether it is (false: the connection is down, the poll covers). */
  async hear(): Promise<boolean> {
    if (this.#hearing === undefined) {
      const hearing = this.#notifications
        .listen(QUEUE_CHANNEL, (payload) => this.#queueNotified(payload))
        .then(
          (unlisten) => {
            if (this.#hearing !== hearing) {
              unlisten(); // deafened (or stopped) while it was being LISTENed
              return undefined;
            }
            this.#heard++;
            this.#hearingNow = true;
            if (this.#heard > 1) void this.reportUnserved(); // what was enqueued while the queue was not heard
            return unlisten;
          },
          () => {
            if (this.#hearing === hearing) this.#hearing = undefined; // the next idle slot tries again
            return undefined;
          },
        );
      this.#hearing = hearing;
    }
    return (await this.#hearing) !== undefined;
  }

  /** Stops hearing the queue (every slot runs a turn); the next slot about to wait hears it again. */
  #deafen(): void {
    const hearing = this.#hearing;
    if (hearing === undefined) return;
    this.#hearing = undefined;
    this.#hearingNow = false;
    this.#race.close();
    void hearing.then((unlisten) => unlisten?.());
  }

  #queueNotified(payload: string): void {
    const turn = parseTurnPayload(payload);
    if (turn === undefined) return;
    const { id, status, detail } = turn;
    if (this.#running >= this.#settings.concurrency && !this.#stopped) {
      this.#deafen(); // no slot can claim: a slot that finishes its turn claims by itself, and hears again before it waits
      return;
    }
    // Only a queued turn is new work; a profile named and not ours is not ours.
    if (status === "running") this.#race.running(id, detail);
    else if (status !== "queued") this.#race.gone(id);
    else if (detail === undefined || this.#serves(detail)) this.#race.queued(id);
    else this.#unserved(detail, id);
  }

  #serves(profile: string): boolean {
    return Object.hasOwn(this.#options.profiles, profile);
  }

  #report(event: WorkerTurnEvent): void {
    try {
      this.#options.onTurn?.(event);
    } catch (error) {
      this.#onError(error, "onTurn");
    }
  }

  #onError(error: unknown, where: string): void {
    try {
      this.#options.onError?.(error, where);
    } catch {
      // a throwing logger must not stop the worker
    }
  }

  stop(options: StopOptions = {}): Promise<void> {
    if (options.mode === "cancel") {
      this.#cancelling = true;
      for (const agent of this.#agents) agent.cancel("the worker is stopping");
    }
    this.#stopping ??= this.#stop();
    return this.#stopping;
  }

  async #stop(): Promise<void> {
    this.#stopped = true;
    this.#idleSlots.close();
    this.#race.close();
    await Promise.all(this.#slots);
    await this.#publications.stop();
    this.#leases.stop();
    await this.#notifications.close();
    for (const store of this.#stores) await store.close().catch((e: unknown) => this.#onError(e, "closing a store"));
    await this.#liveness.stop();
    await this.#opened.close();
  }
}
