// `keelson db migrate --url postgres://…`: creates or upgrades the PostgreSQL store's schema
// (src/store/postgres/schema.ts: one transaction under an advisory lock, idempotent). The URL
// may also come from $KEELSON_STORE when that is a postgres:// URL. What is printed names the
// server without credentials; a schema written by a newer Keelson is refused, untouched (exit 1).
// The turn queue's tables (the fleet schema, src/fleet `migrateFleet`) are migrated with them, and
// the line printed says what became of both: `migrated the Keelson schema from version 0 to 1 and
// the fleet schema from 0 to 10`, `the Keelson schema is already at version 1 (fleet schema 10)`.
// `keelson db rotate-follow-key --url …` replaces the fleet's follow key (src/fleet/follow-seal.ts).
import type { Command } from "commander";
import { type MigrateResult, migrate, redactUrl } from "../store/postgres/index.js";
import { commandSummary } from "./commands.js";
import { CliError } from "./errors.js";

const POSTGRES_URL = /^postgres(ql)?:\/\//;

export function registerDb(program: Command): void {
  const db = program.command("db").description(commandSummary("db"));
  db.command("migrate")
    .description("create or upgrade the Keelson tables in a PostgreSQL database (idempotent)")
    .option("--url <url>", "the database, postgres://user@host:port/db (default: $KEELSON_STORE when it is one)")
    .option("--debug", "print stack traces on errors")
    .action(async (flags: { url?: string }) => {
      const url = databaseUrl("db migrate", flags.url);
      const store = await migrate({ url });
      // The turn queue (src/fleet) lives beside the sessions: `keelson worker` / `send` need it.
      const fleet = await (await import("../fleet/index.js")).migrateFleet({ url });
      process.stdout.write(`${redactUrl(url)}: ${migrationReport(store, fleet)}\n`);
    });
  db.command("rotate-follow-key")
    .description(
      "replace the fleet's follow key (what followed turns are sealed under); running workers and clients take the new one without a restart",
    )
    .option("--url <url>", "the database, postgres://user@host:port/db (default: $KEELSON_STORE when it is one)")
    .option("--debug", "print stack traces on errors")
    .action(async (flags: { url?: string }) => {
      const url = databaseUrl("db rotate-follow-key", flags.url);
      await (await import("../fleet/index.js")).rotateFollowKey(url);
      process.stdout.write(
        `${redactUrl(url)}: rotated the follow key; workers and clients take it when they first hear a message sealed under it\n`,
      );
    });
}

/** The database a `db` command works on: --url, else $KEELSON_STORE when it is a postgres:// URL. */
function databaseUrl(command: string, given: string | undefined): string {
  const url = given ?? (POSTGRES_URL.test(process.env.KEELSON_STORE ?? "") ? process.env.KEELSON_STORE : undefined);
  if (url === undefined) throw new CliError(`${command} needs --url postgres://… (or KEELSON_STORE=postgres://…)`);
  if (!POSTGRES_URL.test(url)) throw new CliError(`--url must be a postgres:// URL, got ${redactUrl(url)}`);
  return url;
}

/** What `db migrate` did, both schemas in one line (the session store's, then the turn queue's). */
export function migrationReport(store: MigrateResult, fleet: MigrateResult): string {
  if (store.from === store.to)
    return fleet.from === fleet.to
      ? `the Keelson schema is already at version ${store.to} (fleet schema ${fleet.to})`
      : `the Keelson schema is already at version ${store.to}; migrated the fleet schema from version ${fleet.from} to ${fleet.to}`;
  return fleet.from === fleet.to
    ? `migrated the Keelson schema from version ${store.from} to ${store.to} (fleet schema already at ${fleet.to})`
    : `migrated the Keelson schema from version ${store.from} to ${store.to} and the fleet schema from ${fleet.from} to ${fleet.to}`;
}
