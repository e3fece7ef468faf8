// outputOf: a turn's structured output recomputed from the log alone — the turn's last
// assistant message, checked against the schema — so a stored session (another process, a
// resumed agent, an audit) gets the value `outcome.output` had, or the issues the turn ended on.
// Pure over the events (the schema's own validator may be async, hence the promise).
import type { SessionEvent } from "../session/index.js";
import { answerText } from "./answer-text.js";
import { compileOutput } from "./compile.js";
import type { OutputCheck, OutputOf } from "./types.js";

export interface OutputOfOptions {
  /** The turn to read (default: the last turn in the log). */
  readonly turn?: number;
}

/**
 * The output of a turn (default the last one) under `schema`: `{ ok: true, value }`, or
 * `{ ok: false, issues }` — also when the turn logged no answer. Throws
 * `OutputError('invalid-schema')` for a schema that cannot be used.
 */
export async function outputOf<S>(
  events: readonly SessionEvent[],
  schema: S,
  options: OutputOfOptions = {},
): Promise<OutputCheck<OutputOf<S>>> {
  const compiled = compileOutput(schema);
  const turn = options.turn ?? lastTurn(events);
  if (turn === undefined) return { ok: false, issues: ["(root): the log has no turn"] };
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!;
    if (event.type !== "assistant/message") continue;
    const { turn: at, content } = (event as SessionEvent<"assistant/message">).data;
    if (at === turn) return (await compiled.check(answerText(content))) as OutputCheck<OutputOf<S>>;
    if (at < turn) break;
  }
  return { ok: false, issues: [`(root): turn ${turn} logged no answer`] };
}

function lastTurn(events: readonly SessionEvent[]): number | undefined {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!;
    if (event.type === "turn/start") return (event as SessionEvent<"turn/start">).data.turn;
  }
  return undefined;
}
