// What tests that follow a fleet turn share: a follow iterated in the background.
import type { TurnEvent } from "../../src/loop/index.js";

/** Iterates `stream` in the background; `seen` fills as events arrive, `ended` settles with the iteration. */
export function follow(stream: AsyncIterable<TurnEvent>): { seen: TurnEvent[]; ended: Promise<void> } {
  const seen: TurnEvent[] = [];
  const ended = (async () => {
    for await (const event of stream) seen.push(event);
  })();
  ended.catch(() => undefined);
  return { seen, ended };
}
