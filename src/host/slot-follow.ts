// `host.follow` over every turn the host has admitted for a session: the open agent's follow and,
// while the session's slot still holds prompts (the host hands each to the agent only once the
// turn before it ended, so the agent's own follow ends between them), the next turn's follow
// from the last committed event delivered — on the agent that runs it (a profile switch reopens
// the session). Ends once the log is read and nothing runs or waits; breaking off closes the
// feed in hand (a follow never cancels a turn).
import type { Agent, TurnEvent } from "../loop/index.js";
import type { SessionSlot } from "./session-slot.js";

export function followSlot(
  slot: SessionSlot,
  first: AsyncIterableIterator<TurnEvent>,
  from: number,
  maxBufferedChars: number | undefined,
): AsyncGenerator<TurnEvent, void, undefined> & { durableThrough(): number } {
  const state = { feed: first };
  // How far the log of the feed in hand is durable (an agent's follow says: TurnFeed.durableThrough).
  const durableThrough = (): number =>
    (state.feed as { durableThrough?: () => number }).durableThrough?.() ?? Number.MAX_SAFE_INTEGER;
  return Object.assign(follow(slot, state, from, maxBufferedChars), { durableThrough });
}

async function* follow(
  slot: SessionSlot,
  state: { feed: AsyncIterableIterator<TurnEvent> },
  from: number,
  maxBufferedChars: number | undefined,
): AsyncGenerator<TurnEvent, void, undefined> {
  let at = from;
  for (;;) {
    for await (const event of state.feed) {
      if ("seq" in event) at = event.seq;
      yield event;
    }
    if (!slot.busy) return;
    await slot.turnUnderway(); // the next admitted prompt's turn has started (or nothing waits any more)
    const agent: Agent | undefined = slot.agent;
    if (agent === undefined) return;
    state.feed = agent.follow({ from: at, ...(maxBufferedChars === undefined ? {} : { maxBufferedChars }) });
  }
}
