// `keelson inspect [id | FILE] [--port N] [--store DIR | postgres://…]`: serves the local web
// inspector (src/inspect) on 127.0.0.1 and prints its URL with the access token; opens nothing.
// Read-only: sessions are loaded without a lock or repair. The store is `--store` (the option
// every command takes, before or after the command's name: main.ts records it), else
// $KEELSON_STORE, else the JSONL sessions of $KEELSON_HOME; a FILE target serves its directory.
// Ctrl-C or SIGTERM stops the server and exits 0.
import { basename, dirname, resolve } from "node:path";
import type { Command } from "commander";
import { defaultSessionsDir } from "../home/index.js";
import type { InspectSource } from "../inspect/index.js";
import { CliError } from "./errors.js";
import { isFileTarget } from "./log-source.js";
import { commandSummary } from "./commands.js";
import { storeSpec } from "./store-choice.js";

interface Flags {
  readonly port?: string;
}

export function registerInspect(program: Command): void {
  program
    .command("inspect")
    .description(commandSummary("inspect"))
    .argument("[id|file]", "open this session first (an id, or a .jsonl log whose directory is served)")
    .option("--port <n>", "port on 127.0.0.1 (default: a free one)")
    .action(async (target: string | undefined, flags: Flags) => {
      const port = portOf(flags.port);
      const inspect = await import("../inspect/index.js");
      let id = target;
      // Not a `--store` of this command's own: the root program's option takes the flag wherever
      // it stands, so this command's would never be set (issue #20 F4).
      let store = storeSpec();
      if (target !== undefined && isFileTarget(target)) {
        store = dirname(resolve(target));
        id = basename(target).replace(/\.jsonl$/, "");
      }
      const source = await sourceOf(store, inspect);
      try {
        if (id !== undefined) await source.load(id);
      } catch (error) {
        await source.close();
        if (error instanceof inspect.InspectError)
          throw new CliError(error.message.replace(/^no session /, "unknown session "));
        throw error;
      }
      let server: Awaited<ReturnType<typeof inspect.startInspectServer>>;
      try {
        const root = target !== undefined && isFileTarget(target) ? store : undefined;
        server = await inspect.startInspectServer({
          source,
          // the Replay tab: the CLI's own configuration, as `keelson replay` runs it (loaded when first asked)
          replay: async (session) => (await import("./replay-command.js")).inspectorReplay(session, root),
          ...(port === undefined ? {} : { port }),
          ...(id ? { sessionId: id } : {}),
        });
      } catch (error) {
        await source.close();
        if ((error as NodeJS.ErrnoException).code === "EADDRINUSE")
          throw new CliError(`port ${port} on 127.0.0.1 is in use; pick another with --port, or leave it out`);
        throw error;
      }
      // The signal handlers go in before the URL is printed: whoever reads the URL may stop us at once.
      const stopped = new Promise<void>((done) => {
        const stop = (): void => {
          process.off("SIGINT", stop);
          process.off("SIGTERM", stop);
          done();
        };
        process.on("SIGINT", stop);
        process.on("SIGTERM", stop);
      });
      process.stdout.write(`keelson inspect: ${server.url}\n`);
      process.stderr.write(`keelson: inspecting ${source.label} read-only; Ctrl-C stops\n`);
      await stopped;
      await server.close();
      await source.close();
    });
}

function portOf(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const port = Number(raw);
  if (!/^\d+$/.test(raw) || port > 65535) throw new CliError(`bad --port ${JSON.stringify(raw)}: want 0–65535`);
  return port;
}

async function sourceOf(
  store: string | undefined,
  inspect: typeof import("../inspect/index.js"),
): Promise<InspectSource> {
  if (store !== undefined && /^postgres(ql)?:\/\//.test(store)) {
    const { PostgresSessionStore } = await import("../store/postgres/index.js");
    return new inspect.StoreInspectSource(new PostgresSessionStore({ url: store }));
  }
  return new inspect.JsonlInspectSource({
    root: store === undefined || store === "" ? defaultSessionsDir() : resolve(store),
  });
}
