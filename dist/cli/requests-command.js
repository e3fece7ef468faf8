// `keelson requests <id> [--step N] [--wire anthropic|openai|deepseek]`: every request the log says was
// sent, reconstructed from the log alone, as JSON — Keelson requests, or with --wire the exact
// payload the provider adapter would put on the wire. `--step` picks one: N is the 1-based
// index in the list, `T.S` is turn T step S.
import { Option } from "commander";
import { reconstructRequests } from "../reconstruct/index.js";
import { CliError } from "./errors.js";
import { loadLog } from "./log-source.js";
import { summaryOf } from "./commands.js";
const WIRES = ["anthropic", "openai", "deepseek"];
export function registerRequests(program) {
    program
        .command("requests")
        .description(summaryOf("requests"))
        .argument("<id|file>", "session id or path to a .jsonl log")
        .option("--step <n|turn.step>", "only one request: its 1-based index, or turn.step")
        .addOption(new Option("--wire <provider>", "print the exact provider payload").choices(WIRES))
        .action(async (target, flags) => {
        const { session } = await loadLog(target);
        const all = [...reconstructRequests(session.events)];
        const { wirePayload } = await import("./wire-payload.js"); // loads the SDK adapters
        const render = (r) => flags.wire === undefined
            ? { turn: r.turn, step: r.step, stepStartSeq: r.stepStartSeq, request: r.request }
            : wirePayload(r, session.id, flags.wire);
        if (flags.step === undefined) {
            process.stdout.write(`${JSON.stringify(all.map(render), null, 2)}\n`);
            return;
        }
        process.stdout.write(`${JSON.stringify(render(pick(all, flags.step)), null, 2)}\n`);
    });
}
function pick(all, step) {
    const dotted = /^(\d+)\.(\d+)$/.exec(step);
    const found = dotted
        ? all.find((r) => r.turn === Number(dotted[1]) && r.step === Number(dotted[2]))
        : /^\d+$/.test(step)
            ? all[Number(step) - 1]
            : undefined;
    if (found === undefined) {
        const known = all.map((r) => `${r.turn}.${r.step}`).join(", ") || "none";
        throw new CliError(`no request ${JSON.stringify(step)}: this session has ${all.length} (1..${all.length}; turn.step ${known})`);
    }
    return found;
}
//# sourceMappingURL=requests-command.js.map