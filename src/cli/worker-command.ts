// `keelson worker --store postgres://… [--concurrency N] (--profiles MODULE | --emulator)`: serves
// the turn queue (src/fleet) until SIGTERM or SIGINT. Profiles come from MODULE (its `profiles`
// export, or its default export: `{ name: AgentProfile }`; a .ts/.mts module is loaded through
// tsx when it can be found, with a clear error otherwise) and/or, with --emulator, the built-in
// `emulator` profile (the rule-based emulator in-process, optional latency) — never implicitly:
// a turn is answered only by a profile someone chose. A turn queued under a profile this worker
// does not serve stays queued for one that does; the worker says so once per profile name.
// One line per turn event on stdout: `<started|finished|abandoned|recovered> <turn id> <session id> <status>`.
// The first signal stops claiming and lets running turns finish (drain); a second cancels them
// (they end `aborted` in the log and are recorded `interrupted`). Leases are released either way.
import { createRequire } from "node:module";
import { readFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { Command } from "commander";
import type { AgentProfile, WorkerTurnEvent } from "../fleet/index.js";
import { redactUrl } from "../store/postgres/index.js";
import { commandSummary } from "./commands.js";
import { CliError, describeError } from "./errors.js";
import { terminalLine } from "./terminal-text.js";
import { isPostgresUrl, storeSpec } from "./store-target.js";

interface WorkerFlags {
  store?: string;
  concurrency: string;
  profiles?: string;
  leaseMs?: string;
  deadAfterMs?: string;
  pollMs?: string;
  emulator?: boolean;
  emulatorLatencyMs?: string;
  migrate?: boolean;
  quiet?: boolean;
}

export function registerWorker(program: Command): void {
  program
    .command("worker")
    .description(commandSummary("worker"))
    .option("--store <url>", "the PostgreSQL database, postgres://… (default $KEELSON_STORE)")
    .option("--concurrency <n>", "turns run at once", "1")
    .option(
      "--profiles <module>",
      "an ES module exporting `profiles` (or a default export): { name: AgentProfile }; .ts needs tsx installed",
    )
    .option("--emulator", "also serve the built-in `emulator` profile (the rule-based emulator, for trying the fleet)")
    .option(
      "--lease-ms <ms>",
      "session lease length: how long the sessions of a worker that stopped answering stay held (default 30000)",
    )
    .option(
      "--dead-after-ms <ms>",
      "how long another worker's liveness lock may be gone before its sessions are taken over (default 5000)",
    )
    .option("--poll-ms <ms>", "how often an idle worker looks for work besides notifications (default 1000)")
    .option("--emulator-latency-ms <ms>", "model latency of the built-in `emulator` profile (with --emulator)")
    .option("--migrate", "create or upgrade the Keelson tables first (as `keelson db migrate`)")
    .option("--quiet", "no per-turn lines")
    .action(async (flags: WorkerFlags) => {
      const url = postgresStore(flags.store, "worker");
      const concurrency = integer("--concurrency", flags.concurrency, 1);
      if (flags.profiles === undefined && flags.emulator !== true)
        throw new CliError(
          "worker needs --profiles MODULE (your agent profiles) or --emulator (the built-in rule-based emulator profile, for trying the fleet)",
        );
      if (flags.emulatorLatencyMs !== undefined && flags.emulator !== true)
        throw new CliError("--emulator-latency-ms applies to the built-in emulator profile: add --emulator");
      const latencyMs = integer("--emulator-latency-ms", flags.emulatorLatencyMs ?? "0", 0);
      const fleet = await import("../fleet/index.js");
      const loaded = flags.profiles === undefined ? {} : await loadProfiles(flags.profiles);
      if (flags.emulator === true && "emulator" in loaded)
        throw new CliError(
          `--profiles ${flags.profiles} defines an \`emulator\` profile: drop --emulator or rename it`,
        );
      const profiles = {
        ...loaded,
        ...(flags.emulator === true ? { emulator: await emulatorProfile(latencyMs) } : {}),
      };
      if (flags.migrate === true) await fleet.migrateFleet({ url });
      const started = fleet.startWorker({
        store: url,
        profiles,
        concurrency,
        ...(flags.leaseMs === undefined ? {} : { leaseMs: integer("--lease-ms", flags.leaseMs, 3) }),
        ...(flags.deadAfterMs === undefined ? {} : { deadAfterMs: integer("--dead-after-ms", flags.deadAfterMs, 100) }),
        ...(flags.pollMs === undefined ? {} : { pollMs: integer("--poll-ms", flags.pollMs, 1) }),
        // Profile names come from whoever queues a turn (and from the module): escaped like any untrusted text.
        onError: (error, where) =>
          process.stderr.write(`keelson worker: ${terminalLine(`${where}: ${describeError(error)}`)}\n`),
        onUnserved: (profile, turnId) =>
          process.stderr.write(
            `keelson worker: ${terminalLine(`turn ${turnId} is queued under profile ${JSON.stringify(profile)}, which this worker does not serve (it serves ${Object.keys(profiles).join(", ")}); it stays queued for a worker that does`)}\n`,
          ),
        ...(flags.quiet === true
          ? {}
          : { onTurn: (event: WorkerTurnEvent) => process.stdout.write(`${turnLine(event)}\n`) }),
      });
      // What the module gave is bad input (exit 2, with its code), as a module exporting nothing is.
      const worker = await started.catch((error: unknown) => {
        if (error instanceof fleet.FleetError && (error.code === "invalid-options" || error.code === "invalid-profile"))
          throw new CliError(`${error.code}: ${error.message}`, 2, { cause: error });
        throw error;
      });
      // The signal handlers go in before "serving" is printed: a supervisor that reads it may stop
      // the worker at once (a SIGTERM before them killed the process instead of draining it).
      const stopped = untilSignalled(async (second) => {
        if (!second) {
          process.stderr.write(
            `keelson worker: stopping; ${worker.running} running turn(s) finish first (signal again to cancel them)\n`,
          );
          return worker.stop();
        }
        process.stderr.write("keelson worker: cancelling the running turns\n");
        return worker.stop({ mode: "cancel" });
      });
      process.stderr.write(
        `${terminalLine(`keelson worker ${worker.id}: serving ${Object.keys(profiles).join(", ")} from ${redactUrl(url)} (concurrency ${concurrency}); SIGTERM or Ctrl-C stops it`)}\n`,
      );
      await stopped;
      process.stderr.write("keelson worker: stopped\n");
    });
}

const turnLine = (e: WorkerTurnEvent): string => `${e.kind} ${e.turnId} ${e.sessionId} ${e.status}`;

/** Resolves once the worker stopped: the first SIGTERM/SIGINT drains, the second cancels. */
function untilSignalled(stop: (second: boolean) => Promise<void>): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    let signals = 0;
    const onSignal = (): void => {
      signals++;
      if (signals > 2) return;
      stop(signals === 2).then(() => {
        process.off("SIGTERM", onSignal);
        process.off("SIGINT", onSignal);
        resolvePromise();
      }, reject);
    };
    process.on("SIGTERM", onSignal);
    process.on("SIGINT", onSignal);
  });
}

/** The PostgreSQL URL in force for `command`: --store, else the root --store / $KEELSON_STORE. */
export function postgresStore(flag: string | undefined, command: string): string {
  const url = flag ?? storeSpec();
  if (url === undefined) throw new CliError(`${command} needs --store postgres://… (or KEELSON_STORE=postgres://…)`);
  if (!isPostgresUrl(url))
    throw new CliError(`${command} needs a PostgreSQL store (the turn queue lives there); got ${JSON.stringify(url)}`);
  return url;
}

export function integer(name: string, value: string, min: number): number {
  const n = Number(value);
  if (!/^[0-9]+$/.test(value) || !Number.isSafeInteger(n) || n < min)
    throw new CliError(`invalid ${name} ${JSON.stringify(value)}: expected an integer ≥ ${min}`);
  return n;
}

/** The profiles a module exports (`profiles`, else its default export). */
export async function loadProfiles(path: string): Promise<Record<string, AgentProfile>> {
  let module: { profiles?: unknown; default?: unknown };
  try {
    module = (await importProfiles(resolve(path))) as typeof module;
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError(`--profiles ${path}: the module could not be loaded: ${describeError(error)}`, 2, {
      cause: error,
    });
  }
  const profiles = module.profiles ?? module.default;
  if (typeof profiles !== "object" || profiles === null || Array.isArray(profiles))
    throw new CliError(`--profiles ${path}: the module exports no \`profiles\` object (nor a default export)`);
  return profiles as Record<string, AgentProfile>;
}

/**
 * Imports a profiles module. Node runs JavaScript only: a TypeScript module (.ts, .mts, .cts)
 * that Node refuses is loaded through tsx's `tsImport` when tsx can be found (from the module's
 * own directory, as its project would resolve it, else from Keelson's); without tsx, a clear
 * error says what to do.
 */
async function importProfiles(absolute: string): Promise<unknown> {
  const url = pathToFileURL(absolute).href;
  try {
    return await import(url);
  } catch (error) {
    const unknownExtension = (error as { code?: unknown }).code === "ERR_UNKNOWN_FILE_EXTENSION";
    if (!unknownExtension || !/\.[mc]?ts$/.test(absolute)) throw error;
  }
  const tsImport = await findTsImport(absolute);
  if (tsImport === undefined)
    throw new CliError(
      `--profiles ${absolute}: a TypeScript module, and tsx (which loads one) is not installed where it or Keelson can find it: \`npm install --save-dev tsx\` in its project, run the worker as \`node --import tsx $(which keelson) worker …\`, or compile the module to .js/.mjs`,
    );
  return tsImport(url, import.meta.url);
}

type TsImport = (specifier: string, parent: string) => Promise<unknown>;

async function findTsImport(modulePath: string): Promise<TsImport | undefined> {
  for (const base of [pathToFileURL(modulePath).href, import.meta.url]) {
    try {
      // tsx's ESM entry (`exports["./esm/api"].import`): require.resolve would give its CommonJS one.
      const manifestPath = createRequire(base).resolve("tsx/package.json");
      const manifest = JSON.parse(await readFile(manifestPath, "utf8")) as {
        exports?: { "./esm/api"?: { import?: { default?: string } | string } };
      };
      const entry = manifest.exports?.["./esm/api"]?.import;
      const relative = typeof entry === "string" ? entry : entry?.default;
      if (relative === undefined) continue;
      const api = (await import(pathToFileURL(resolve(dirname(manifestPath), relative)).href)) as {
        tsImport?: TsImport;
      };
      if (typeof api.tsImport === "function") return api.tsImport;
    } catch {
      // not found from there
    }
  }
  return undefined;
}

/** The built-in profile: the rule-based emulator in-process, answering after `latencyMs`. */
export async function emulatorProfile(latencyMs: number): Promise<AgentProfile> {
  const { countTokens, EmulatorProvider, RuleBasedModel } = await import("../emulator/index.js");
  // The tokenizer's tables load on first use, blocking the event loop (the lease heartbeat with
  // it): load them before the worker claims a turn, not inside the first one.
  countTokens("warm up");
  const rules = new RuleBasedModel();
  return {
    provider: () =>
      new EmulatorProvider({
        model:
          latencyMs === 0
            ? rules
            : async (request) => {
                await new Promise((done) => setTimeout(done, latencyMs));
                return rules.reply(request);
              },
      }),
    model: "emulator:rule-based",
    system: "You are Keelson, a careful agent. Answer concisely.",
  };
}
