// A fleet follower's read back for the answer a question takes its call from (AskingCalls in the
// loop): the latest `assistant/message` before a seq, read from the log in windows that double
// going back. A question asked before its call runs comes a few events after that answer (the
// paused step's requests, its turn's end, the decisions, the continuation's start), so it is one
// read, two for a step of many calls. Only a follower that started after the answer reads.
import type { SessionEvent } from "../session/index.js";

const FIRST_WINDOW = 16;
/** How far back a read back goes before giving up: the question then streams without its call (a reload from the log marks it). */
export const MAX_ANSWER_LOOKBACK = 4096;

/** The latest `assistant/message` with seq below `seq` (within MAX_ANSWER_LOOKBACK events), or undefined. */
export async function latestAnswerBefore(
  readEvents: (from: number, to: number) => Promise<readonly SessionEvent[]>,
  seq: number,
): Promise<SessionEvent | undefined> {
  let window = FIRST_WINDOW;
  for (let to = seq; to > 0 && seq - to < MAX_ANSWER_LOOKBACK; window *= 2) {
    const from = Math.max(0, to - window, seq - MAX_ANSWER_LOOKBACK);
    const events = await readEvents(from, to);
    for (let i = events.length - 1; i >= 0; i--) if (events[i]!.type === "assistant/message") return events[i];
    to = from;
  }
  return undefined;
}
