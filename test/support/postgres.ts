// A throwaway PostgreSQL cluster for the test run, and a fresh database per test file.
//
// `startCluster` runs the installed server binaries (PostgreSQL 15 preferred): `initdb` into a
// mkdtemp dir (trust auth), `pg_ctl start` on 127.0.0.1 at a free port with the Unix socket in
// that dir and fsync off. As root the dir is chowned to `postgres` and the binaries run through
// `runuser -u postgres --` (the server refuses to run as root). The vitest globalSetup
// (postgres-global-setup.ts) starts one per run and `provide`s its admin URL; `freshDatabase`
// creates a uniquely named database on it for a test file.
import { execFile } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { chown, mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";

declare module "vitest" {
  export interface ProvidedContext {
    /** `postgres://postgres@127.0.0.1:<port>/postgres` of the run's throwaway cluster. */
    pgAdminUrl: string;
  }
}

export interface Cluster {
  /** Superuser URL (trust auth, no password) of the `postgres` database. */
  readonly adminUrl: string;
  readonly port: number;
  readonly dir: string;
  /** `pg_ctl stop -m fast`, then removes the dir. */
  stop(): Promise<void>;
}

/** The bin directory of the newest installed PostgreSQL (15 preferred), or undefined. */
export function postgresBinDir(root = "/usr/lib/postgresql"): string | undefined {
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, "bin", "initdb")))
    .sort((a, b) => Number(b) - Number(a));
  const chosen = versions.includes("15") ? "15" : versions[0];
  return chosen === undefined ? undefined : join(root, chosen, "bin");
}

function run(file: string, args: readonly string[], asPostgres: boolean): Promise<string> {
  const [cmd, argv] = asPostgres ? ["runuser", ["-u", "postgres", "--", file, ...args]] : [file, [...args]];
  return new Promise((resolve, reject) => {
    execFile(cmd, argv, { timeout: 60_000 }, (error, stdout, stderr) => {
      if (error === null) resolve(stdout);
      else reject(new Error(`${cmd} ${argv.join(" ")} failed: ${error.message}\n${stderr}`));
    });
  });
}

/** A TCP port on 127.0.0.1 that was free a moment ago. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts a cluster from the binaries under `root` (`<root>/<version>/bin`). Tests run it with
 * `fsync=off`; a benchmark passes `{ fsync: true }` to measure commits as a server makes them.
 */
export async function startCluster(root = "/usr/lib/postgresql", options: { fsync?: boolean } = {}): Promise<Cluster> {
  const bin = postgresBinDir(root);
  if (bin === undefined)
    throw new Error(
      `PostgreSQL server binaries not found under ${root}/*/bin (initdb, pg_ctl): the PostgreSQL store tests need them. Install them with \`apt-get install -y postgresql\` (.ci/run does this in CI).`,
    );
  const asPostgres = userInfo().uid === 0;
  const dir = await mkdtemp(join(tmpdir(), "keelson-pg-"));
  const data = join(dir, "data");
  try {
    if (asPostgres) {
      const { uid, gid } = await postgresIds();
      await chown(dir, uid, gid);
    }
    await run(
      join(bin, "initdb"),
      ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8"],
      asPostgres,
    );
    // A port free a moment ago may be taken by the time the server binds: try a few.
    for (let attempt = 1; ; attempt++) {
      const port = await freePort();
      const server = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=${options.fsync === true ? "on" : "off"} -c max_connections=200`;
      try {
        await run(join(bin, "pg_ctl"), ["-D", data, "-l", join(dir, "log"), "-w", "-o", server, "start"], asPostgres);
      } catch (e) {
        if (attempt < 3) continue;
        throw e;
      }
      return {
        adminUrl: `postgres://postgres@127.0.0.1:${port}/postgres`,
        port,
        dir,
        async stop() {
          await run(join(bin, "pg_ctl"), ["-D", data, "-w", "stop", "-m", "fast"], asPostgres).catch(() => undefined);
          await rm(dir, { recursive: true, force: true });
        },
      };
    }
  } catch (e) {
    await rm(dir, { recursive: true, force: true });
    throw e;
  }
}

async function postgresIds(): Promise<{ uid: number; gid: number }> {
  const [uid, gid] = await Promise.all([run("id", ["-u", "postgres"], false), run("id", ["-g", "postgres"], false)]);
  return { uid: Number(uid.trim()), gid: Number(gid.trim()) };
}

/** Runs one statement as the cluster's superuser (a short-lived connection). */
export async function adminQuery(adminUrl: string, text: string, values: unknown[] = []): Promise<unknown[]> {
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return (await client.query(text, values)).rows;
  } finally {
    await client.end();
  }
}

export interface FreshDatabase {
  readonly url: string;
  readonly name: string;
  /** Drops the database (terminating any connection still open to it). */
  drop(): Promise<void>;
}

/** A new, empty database on the run's cluster (the admin URL `provide`d by the globalSetup). */
export async function freshDatabase(adminUrl: string): Promise<FreshDatabase> {
  const name = `keelson_test_${randomBytes(6).toString("hex")}`;
  await adminQuery(adminUrl, `CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: async () => {
      await adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}
