// `keelson send --follow`: prints a queued turn as it streams from whichever worker runs it
// (fleetClient.stream, decision 0016) — the answer's text deltas as they arrive, each step's text
// on its own line; a step whose deltas this client did not see (it connected mid-step, or its
// deltas overflowed) is printed from its committed answer. With --json every event is one JSON
// line. Everything printed is untrusted model text: escaped for the terminal (terminal-text.ts).
import type { FleetClient } from "../fleet/index.js";
import type { TurnEvent } from "../loop/index.js";
import { TerminalTextStream, terminalJson } from "./terminal-text.js";

export interface FollowPrintOptions {
  readonly json: boolean;
  readonly signal?: AbortSignal;
  readonly out?: (text: string) => void;
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
  const streamed = new Set<string>(); // steps whose text arrived as deltas
  let endedWithNewline = true;
  const print = (text: string): void => {
    if (text === "") return;
    write(answer.push(text));
    endedWithNewline = text.endsWith("\n");
  };
  try {
    for await (const event of stream) {
      if (event.type === "step-start" && !endedWithNewline) print("\n");
      else if (event.type === "text-delta") {
        streamed.add(`${event.turn}/${event.step}`);
        print(event.delta);
      } else if (event.type === "assistant-message" && !streamed.has(`${event.turn}/${event.step}`))
        print(textOf(event));
    }
  } finally {
    write(endedWithNewline ? answer.flush() : answer.push("\n"));
  }
}

function textOf(event: Extract<TurnEvent, { type: "assistant-message" }>): string {
  return event.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("\n");
}
