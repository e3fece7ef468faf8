// startWorker: `concurrency` slots, each claiming the next turn (claim-turn.ts) and running it
// (run-turn.ts) until stopped; an idle slot waits for a queue notification or `pollMs` (a dead
// worker's lease lapsing sends no notification, so polling finds it). Sessions are loaded
// through one PostgresSessionStore per worker whose lease owner is the worker's id — the owner
// the claim takes each lease for, so the store's writable load keeps the claim's epoch — and
// whose heartbeat keeps the leases of running turns alive.
import { hostname } from "node:os";
import { randomUUID } from "node:crypto";
import type { Agent } from "../loop/index.js";
import { checkSchema, PostgresSessionStore } from "../store/postgres/index.js";
import { claimTurn } from "./claim-turn.js";
import { checkFleetSchema } from "./fleet-schema.js";
import { fleetDbError, type OpenedPool, openPool } from "./fleet-pool.js";
import { LeaseWatch } from "./lease-watch.js";
import { closeAdopted, runClaimedTurn, type TurnRunnerContext } from "./run-turn.js";
import { TurnNotifications } from "./turn-notifications.js";
import {
  type AgentProfile,
  FleetError,
  type StopOptions,
  type Worker,
  type WorkerOptions,
  type WorkerTurnEvent,
} from "./types.js";

/** Starts a worker on a migrated database; resolves once its connections and schemas are checked. */
export async function startWorker(options: WorkerOptions): Promise<Worker> {
  const settings = checkOptions(options);
  const opened = await openPool(options.store, {
    max: settings.concurrency * 2 + 2,
    applicationName: `keelson-worker ${settings.id}`,
  });
  try {
    await checkSchema(opened.pool, opened.label);
    await checkFleetSchema(opened.pool, opened.label);
  } catch (e) {
    await opened.close();
    throw fleetDbError(e, opened.label, "checking the schema");
  }
  const worker = new FleetWorker(opened, settings, options);
  worker.start();
  return worker;
}

interface Settings {
  readonly id: string;
  readonly concurrency: number;
  readonly leaseMs: number;
  readonly pollMs: number;
  readonly maxAttempts: number;
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
    id: options.workerId ?? `${hostname()}/${process.pid}/${randomUUID().slice(0, 8)}`,
    concurrency: positive("concurrency", options.concurrency, 1),
    leaseMs: positive("leaseMs", options.leaseMs, 30_000, 3),
    pollMs: positive("pollMs", options.pollMs, 1000),
    maxAttempts: positive("maxAttempts", options.maxAttempts, 5),
  };
}

function checkProfile(name: string, profile: AgentProfile | undefined): void {
  const refused = (why: string): FleetError =>
    new FleetError("invalid-profile", `profile ${JSON.stringify(name)} ${why}`);
  if (name === "" || name.includes(" ")) throw refused("is not a usable name (empty or with a space)");
  if (typeof profile !== "object" || profile === null) throw refused("is not an object");
  if (typeof profile.model !== "string" || profile.model === "") throw refused("needs a `model` string");
  const provider = profile.provider as unknown;
  const isProvider = typeof provider === "object" && provider !== null && "stream" in provider;
  if (typeof provider !== "function" && !isProvider)
    throw refused("needs a `provider` (a Provider or a function returning one)");
}

class FleetWorker implements Worker {
  readonly id: string;
  readonly #opened: OpenedPool;
  readonly #settings: Settings;
  readonly #options: WorkerOptions;
  readonly #notifications: TurnNotifications;
  readonly #leases: LeaseWatch;
  readonly #agents = new Set<Agent>();
  readonly #stores: PostgresSessionStore[] = [];
  readonly #waiters = new Set<() => void>();
  #store: PostgresSessionStore;
  #slots: Promise<void>[] = [];
  #stopping: Promise<void> | undefined;
  #stopped = false;
  #cancelling = false;
  #running = 0;

  constructor(opened: OpenedPool, settings: Settings, options: WorkerOptions) {
    this.id = settings.id;
    this.#opened = opened;
    this.#settings = settings;
    this.#options = options;
    this.#notifications = new TurnNotifications(opened.pool);
    this.#notifications.subscribe(() => this.#wake());
    this.#leases = new LeaseWatch(opened.pool, settings.id, settings.leaseMs);
    this.#store = this.#newStore();
  }

  get running(): number {
    return this.#running;
  }

  start(): void {
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
        if (store === this.#store) this.#store = this.#newStore(); // later turns use a clean one
      },
      leases: this.#leases,
      agents: this.#agents,
      cancelling: () => this.#cancelling,
      report: (event) => this.#report(event),
      onError: (error, where) => this.#onError(error, where),
    };
  }

  async #slot(): Promise<void> {
    const context = this.#context();
    const claim = {
      owner: this.id,
      leaseMs: this.#settings.leaseMs,
      profiles: Object.keys(this.#options.profiles),
      maxAttempts: this.#settings.maxAttempts,
    };
    while (!this.#stopped) {
      let result: Awaited<ReturnType<typeof claimTurn>>;
      try {
        result = await claimTurn(this.#opened.pool, claim);
      } catch (error) {
        this.#onError(fleetDbError(error, this.#opened.label, "claiming a turn"), "claim");
        await this.#idle();
        continue;
      }
      for (const r of result.recovered)
        this.#report({ kind: "recovered", turnId: r.id, sessionId: r.sessionId, status: r.status });
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
        this.#wake(); // the session's next turn may now be claimable
      } else if (!result.found) {
        await this.#idle();
      }
    }
  }

  /** Waits for a queue notification, `pollMs`, or stop. */
  async #idle(): Promise<void> {
    if (this.#stopped) return;
    await this.#notifications.listening();
    await new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.#waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, this.#settings.pollMs);
      this.#waiters.add(done);
    });
  }

  #wake(): void {
    for (const waiter of [...this.#waiters]) waiter();
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
    this.#wake();
    await Promise.all(this.#slots);
    this.#leases.stop();
    await this.#notifications.close();
    for (const store of this.#stores) await store.close().catch((e: unknown) => this.#onError(e, "closing a store"));
    await this.#opened.close();
  }
}
