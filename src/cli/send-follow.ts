// `keelson send --follow`: prints a queued turn as it streams from whichever worker runs it
// (fleetClient.stream, decision 0016) — the answer's text deltas as they arrive, each step's text
// on its own line; what of a step's text this client did not see as deltas (it connected mid-step,
// its deltas overflowed, the database restarted mid-step) is printed from its committed answer
// when the step ends, so the printed answer is the logged one. A worker lost before it saved the
// step it streamed: its re-run comes from the same log position (a seq delivered again), and a
// line on stderr says the text printed before it is void. With --json every event is one JSON
// line. Everything printed is untrusted model text: escaped for the terminal (terminal-text.ts).
import type { FleetClient } from "../fleet/index.js";
import type { TurnEvent } from "../loop/index.js";
import { TerminalTextStream, terminalJson } from "./terminal-text.js";

export interface FollowPrintOptions {
  readonly json: boolean;
  readonly signal?: AbortSignal;
  readonly out?: (text: string) => void;
  readonly err?: (text: string) => void;
}

/** Streams turn `turnId` to stdout until its end; rejects as `client.stream` does. */
export async function printFollowedTurn(
  client: FleetClient,
  turnId: string,
  options: FollowPrintOptions,
): Promise<void> {
  const write = options.out ?? ((text: string) => process.stdout.write(text));
  const stream = client.stream(turnId, options.signal === undefined ? {} : { signal: options.signal });
  if (options.json) {
    for await (const event of stream) write(`${terminalJson(JSON.stringify(event))}\n`);
    return;
  }
  const answer = new TerminalTextStream();
  let printed = new Map<number, string>(); // the step in flight's text printed from deltas, by content index
  let endedWithNewline = true;
  let lastSeq = -1;
  const print = (text: string): void => {
    if (text === "") return;
    write(answer.push(text));
    endedWithNewline = text.endsWith("\n");
  };
  try {
    for await (const event of stream) {
      const seq = "seq" in event ? event.seq : undefined;
      if (seq !== undefined && seq <= lastSeq) {
        // The log holds something else where this client was shown the dead worker's unsaved events.
        if (!endedWithNewline) print("\n");
        (options.err ?? ((text: string) => process.stderr.write(text)))(
          `keelson send: turn ${turnId} runs again (its worker was lost before saving this step): the text above is not part of its answer\n`,
        );
        printed = new Map(); // the re-run's step may start again before this seq's step did: none of it is printed
      }
      if (seq !== undefined) lastSeq = seq;
      if (event.type === "step-start" || event.type === "retry") {
        if (!endedWithNewline) print("\n");
        printed = new Map();
      } else if (event.type === "text-delta") {
        printed.set(event.index, (printed.get(event.index) ?? "") + event.delta);
        print(event.delta);
      } else if (event.type === "assistant-message") {
        print(unprinted(event, printed));
        printed = new Map();
      }
    }
  } finally {
    write(endedWithNewline ? answer.flush() : answer.push("\n"));
  }
}

/**
 * What of a step's committed text is still to print after `printed` (its deltas, by content
 * index): the rest of a block whose start was printed, whole blocks none of which was (a new line
 * before each but the step's first), a whole block on a line of its own when what was printed is
 * not its start.
 */
function unprinted(
  event: Extract<TurnEvent, { type: "assistant-message" }>,
  printed: ReadonlyMap<number, string>,
): string {
  let out = "";
  let any = printed.size > 0;
  event.content.forEach((block, index) => {
    if (block.type !== "text") return;
    const seen = printed.get(index) ?? "";
    if (seen === "") out += `${any ? "\n" : ""}${block.text}`;
    else if (block.text.startsWith(seen)) out += block.text.slice(seen.length);
    else out += `\n${block.text}`;
    any = true;
  });
  return out;
}
