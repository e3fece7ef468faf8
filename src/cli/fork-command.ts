// `keelson fork <id> [--at SEQ]`: stores a child session of `id` cut at a `turn/end` (the
// last one by default) and prints the child's id. No model is involved. The child's log
// references the parent's (decision 0009) rather than copying it.
import type { Command } from "commander";
import { forkSession, SessionError } from "../session/index.js";
import { CliError } from "./errors.js";
import { cliErrorOf, isFileTarget, loadLog, openStore } from "./log-source.js";
import { commandSummary } from "./commands.js";

export function registerFork(program: Command): void {
  program
    .command("fork")
    .description(commandSummary("fork"))
    .argument("<id>", "parent session id")
    .option("--at <seq>", "seq of the parent's turn/end to fork at (default: the last)")
    .action(async (id: string, flags: { at?: string }) => {
      const atSeq = flags.at === undefined ? undefined : parseSeq(flags.at);
      // The parent is loaded through the store the child is created in, so the child's log
      // references the parent's instead of copying it (a FILE target is copied).
      const store = await openStore();
      let child: ReturnType<typeof forkSession>;
      try {
        const parent = isFileTarget(id)
          ? (await loadLog(id)).session
          : (
              await store.load(id, { readOnly: true }).catch((error: unknown) => {
                throw cliErrorOf(error);
              })
            ).session;
        try {
          child = forkSession(parent, atSeq === undefined ? {} : { atSeq });
        } catch (error) {
          if (error instanceof SessionError)
            throw new CliError(`cannot fork ${id}${atSeq === undefined ? "" : ` at ${atSeq}`}: ${error.message}`);
          throw error;
        }
        await store.create(child.header, child.events);
      } finally {
        await store.close();
      }
      process.stdout.write(`${child.id}\n`);
    });
}

function parseSeq(text: string): number {
  if (!/^\d+$/.test(text))
    throw new CliError(`invalid --at ${JSON.stringify(text)}: expected the seq of a turn/end (a non-negative integer)`);
  return Number(text);
}
