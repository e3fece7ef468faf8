// The fleet suite's rig: a throwaway PostgreSQL cluster (test/support/postgres.ts, as the tests
// start it), a migrated database, N `keelson worker` processes (the built CLI, serving the test
// profiles of test/fleet/fixtures/fleet-profiles.mjs), and the faults: SIGKILL of a worker (a new
// one is started in its place) and pg_terminate_backend of every connection of a worker (found
// by its application_name, which carries its pid).
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { adminQuery, type Cluster, type FreshDatabase, freshDatabase, startCluster } from "../test/support/postgres.js";

const root = fileURLToPath(new URL("..", import.meta.url));
const launcher = `${root}bin/keelson.js`;
const profiles = `${root}test/fleet/fixtures/fleet-profiles.mjs`;

export interface RigOptions {
  readonly workers: number;
  readonly concurrency: number;
  readonly leaseMs: number;
  /** The echo profile's model latency (ms). */
  readonly latencyMs: number;
}

/** One worker process; `exited` resolves when it is gone (SIGKILL included). */
export interface WorkerSlot {
  child: ChildProcess;
  exited: Promise<void>;
  stderr: string;
  /** Killed by the rig (a fault), as opposed to a crash. */
  killed: boolean;
}

export class FleetRig {
  readonly cluster: Cluster;
  readonly database: FreshDatabase;
  readonly options: RigOptions;
  readonly slots: WorkerSlot[] = [];
  /** Everything the workers wrote on stderr (errors they contained), for a failing run's report. */
  readonly errors: string[] = [];
  /** Workers that exited on their own (a crash: never expected), with their stderr's tail; each is replaced. */
  readonly crashes: string[] = [];
  started = 0;
  #stopping = false;

  private constructor(cluster: Cluster, database: FreshDatabase, options: RigOptions) {
    this.cluster = cluster;
    this.database = database;
    this.options = options;
  }

  static async start(options: RigOptions, migrate: (url: string) => Promise<unknown>): Promise<FleetRig> {
    const cluster = await startCluster();
    try {
      const database = await freshDatabase(cluster.adminUrl);
      await migrate(database.url);
      const rig = new FleetRig(cluster, database, options);
      for (let i = 0; i < options.workers; i++) rig.slots.push(rig.#spawn());
      return rig;
    } catch (e) {
      await cluster.stop();
      throw e;
    }
  }

  #spawn(): WorkerSlot {
    const { concurrency, leaseMs, latencyMs } = this.options;
    const child = spawn(
      process.execPath,
      [
        launcher,
        "worker",
        "--store",
        this.database.url,
        "--profiles",
        profiles,
        "--concurrency",
        String(concurrency),
        "--lease-ms",
        String(leaseMs),
        "--poll-ms",
        "100",
        "--quiet",
      ],
      { env: { ...process.env, KEELSON_FLEET_LATENCY_MS: String(latencyMs) }, stdio: ["ignore", "ignore", "pipe"] },
    );
    this.started++;
    const slot: WorkerSlot = { child, exited: Promise.resolve(), stderr: "", killed: false };
    slot.exited = new Promise((resolve) =>
      child.once("exit", (code, signal) => {
        if (!slot.killed && !this.#stopping) {
          this.crashes.push(`worker pid ${child.pid} exited by itself (${signal ?? code}): ${slot.stderr.slice(-600)}`);
          const i = this.slots.indexOf(slot);
          if (i >= 0) this.slots[i] = this.#spawn();
        }
        resolve();
      }),
    );
    child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
      slot.stderr += chunk;
      for (const line of chunk.split("\n"))
        if (line.includes("keelson worker:") && !line.includes("stop")) this.errors.push(line);
    });
    return slot;
  }

  /** SIGKILLs the worker in slot `i` (a node process this rig spawned) and starts a new one there. */
  async kill(i: number): Promise<void> {
    const slot = this.slots[i]!;
    slot.killed = true;
    slot.child.kill("SIGKILL");
    await slot.exited;
    this.slots[i] = this.#spawn();
  }

  /** Terminates every PostgreSQL connection of the worker in slot `i`; returns how many. */
  async terminateConnections(i: number): Promise<number> {
    const pid = this.slots[i]!.child.pid;
    const rows = (await adminQuery(
      this.cluster.adminUrl,
      `SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity
        WHERE datname = $1 AND application_name LIKE 'keelson-worker %/' || $2::text || '/%'`,
      [this.database.name, String(pid)],
    )) as { ok: boolean }[];
    return rows.filter((r) => r.ok).length;
  }

  /** SIGTERM to every worker (drain), SIGKILL to one that has not exited within 15 s; then the cluster goes. */
  async stop(): Promise<void> {
    this.#stopping = true;
    await Promise.all(
      this.slots.map(async (slot) => {
        slot.child.kill("SIGTERM");
        const timer = setTimeout(() => slot.child.kill("SIGKILL"), 15_000);
        await slot.exited;
        clearTimeout(timer);
      }),
    );
    await this.database.drop().catch(() => undefined);
    await this.cluster.stop();
  }
}
