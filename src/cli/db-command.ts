// `keelson db migrate --url postgres://…`: creates or upgrades the PostgreSQL store's schema
// (src/store/postgres/schema.ts: one transaction under an advisory lock, idempotent). The URL
// may also come from $KEELSON_STORE when that is a postgres:// URL. What is printed names the
// server without credentials; a schema written by a newer Keelson is refused, untouched (exit 1).
import type { Command } from "commander";
import { migrate, redactUrl } from "../store/postgres/index.js";
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
      const url =
        flags.url ?? (POSTGRES_URL.test(process.env.KEELSON_STORE ?? "") ? process.env.KEELSON_STORE : undefined);
      if (url === undefined) throw new CliError("db migrate needs --url postgres://… (or KEELSON_STORE=postgres://…)");
      if (!POSTGRES_URL.test(url)) throw new CliError(`--url must be a postgres:// URL, got ${redactUrl(url)}`);
      const { from, to } = await migrate({ url });
      // The turn queue (src/fleet) lives beside the sessions: `keelson worker` / `send` need it.
      await (await import("../fleet/index.js")).migrateFleet({ url });
      process.stdout.write(
        from === to
          ? `${redactUrl(url)}: the Keelson schema is already at version ${to}\n`
          : `${redactUrl(url)}: migrated the Keelson schema from version ${from} to ${to}\n`,
      );
    });
}
