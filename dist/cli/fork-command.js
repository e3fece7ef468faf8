import { forkSession, SessionError } from "../session/index.js";
import { CliError } from "./errors.js";
import { loadLog, openStore } from "./log-source.js";
import { summaryOf } from "./commands.js";
export function registerFork(program) {
    program
        .command("fork")
        .description(summaryOf("fork"))
        .argument("<id>", "parent session id")
        .option("--at <seq>", "seq of the parent's turn/end to fork at (default: the last)")
        .action(async (id, flags) => {
        const atSeq = flags.at === undefined ? undefined : parseSeq(flags.at);
        const { session: parent } = await loadLog(id);
        let child;
        try {
            child = forkSession(parent, atSeq === undefined ? {} : { atSeq });
        }
        catch (error) {
            if (error instanceof SessionError)
                throw new CliError(`cannot fork ${id}${atSeq === undefined ? "" : ` at ${atSeq}`}: ${error.message}`);
            throw error;
        }
        const store = openStore();
        try {
            await store.create(child.header, child.events);
        }
        finally {
            await store.close();
        }
        process.stdout.write(`${child.id}\n`);
    });
}
function parseSeq(text) {
    if (!/^\d+$/.test(text))
        throw new CliError(`invalid --at ${JSON.stringify(text)}: expected the seq of a turn/end (a non-negative integer)`);
    return Number(text);
}
//# sourceMappingURL=fork-command.js.map