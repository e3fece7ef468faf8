// `keelson requests <id> [--step N] [--wire <wire>]` (anthropic, openai, responses, deepseek,
// gemini, vllm, llamacpp, ollama, lmstudio): every request the log says was sent, reconstructed
// from the log alone — Keelson requests as a JSON array, or with --wire the
// exact request bodies the provider adapter puts on the wire, one per line, byte for byte as the
// SDK sends them. `--step` picks one: N is the 1-based index in the list, `T.S` is turn T step S.
// The JSON array has C1/format characters \u-escaped for the terminal (same value). The --wire
// lines are byte-exact when stdout is a file or a pipe; on a terminal they get the same escaping
// (same JSON value, other bytes): JSON.stringify escapes every C0 control, ESC included, but
// leaves the 8-bit CSI U+009B and bidi overrides raw, which a terminal could obey.
import { type Command, Option } from "commander";
import { type ReconstructedRequest, reconstructRequests } from "../reconstruct/index.js";
import { CliError } from "./errors.js";
import { loadLog } from "./log-source.js";
import { type Wire, WIRES } from "../reconstruct/wire-names.js";
import { commandSummary } from "./commands.js";
import { terminalJson } from "./terminal-text.js";

export function registerRequests(program: Command): void {
  program
    .command("requests")
    .description(commandSummary("requests"))
    .argument("<id|file>", "session id or path to a .jsonl log")
    .option("--step <n|turn.step>", "only one request: its 1-based index, or turn.step")
    .addOption(new Option("--wire <provider>", "print the exact request bodies sent, one per line").choices(WIRES))
    .action(async (target: string, flags: { step?: string; wire?: Wire }) => {
      const { session } = await loadLog(target);
      const all = [...reconstructRequests(session.events)];
      const chosen = flags.step === undefined ? all : [pick(all, flags.step)];
      if (flags.wire !== undefined) {
        const { wireBody } = await import("./wire-payload.js"); // loads the SDK adapters
        const wire = flags.wire;
        const bodies = chosen.map((r) => wireBody(r, session.id, wire));
        process.stdout.write(wireLines(bodies, process.stdout.isTTY === true));
        return;
      }
      const render = (r: ReconstructedRequest): unknown => ({
        turn: r.turn,
        step: r.step,
        stepStartSeq: r.stepStartSeq,
        request: r.request,
      });
      const out = flags.step === undefined ? all.map(render) : render(chosen[0]!);
      process.stdout.write(`${terminalJson(JSON.stringify(out, null, 2))}\n`);
    });
}

/**
 * The --wire output: one body per line, exactly the bytes the adapter's SDK sends — unless the
 * lines go to a terminal, where the characters a terminal may obey are `\u`-escaped (`terminalJson`).
 */
export function wireLines(bodies: readonly string[], toTerminal: boolean): string {
  const text = bodies.map((body) => `${body}\n`).join("");
  return toTerminal ? terminalJson(text) : text;
}

function pick(all: readonly ReconstructedRequest[], step: string): ReconstructedRequest {
  const dotted = /^(\d+)\.(\d+)$/.exec(step);
  const found = dotted
    ? all.find((r) => r.turn === Number(dotted[1]) && r.step === Number(dotted[2]))
    : /^\d+$/.test(step)
      ? all[Number(step) - 1]
      : undefined;
  if (found === undefined) {
    const known = all.map((r) => `${r.turn}.${r.step}`).join(", ") || "none";
    throw new CliError(
      `no request ${JSON.stringify(step)}: this session has ${all.length} (1..${all.length}; turn.step ${known})`,
    );
  }
  return found;
}
