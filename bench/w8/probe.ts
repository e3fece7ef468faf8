// W8's event-latency probe: an agent plugin that stamps, per session, when the loop committed
// each event (`session/event`) and when each live block's first chunk arrived from the provider
// (`llm/chunk` block-start), and a consumer-side check that turns a received TurnEvent into the
// time it spent between the loop and the consumer. Every runner (the baseline included) carries
// the same probe, so its cost is in every row alike.
import { performance } from "node:perf_hooks";
import type { AgentPlugin, TurnEvent } from "../../src/loop/index.js";

export class LatencyProbe {
  /** `<session>:<seq>` or `<session>:<turn>/<step>/<index>` → performance.now() at the source. */
  readonly #stamps = new Map<string, number>();
  /** Every event but `turn-end` (ms). */
  readonly samples: number[] = [];
  /** `turn-end`: delivered with the outcome, after the turn's final flush (ms). */
  readonly turnEnds: number[] = [];

  readonly plugin: AgentPlugin = (host) => {
    const id = host.agent.session.id;
    const offEvents = host.on("session/event", ({ event }) => {
      this.#stamps.set(`${id}:${event.seq}`, performance.now());
    });
    const offChunks = host.on("llm/chunk", ({ agent, chunk }) => {
      if (chunk.type !== "block-start") return;
      const { openTurn, openStep } = agent.session;
      this.#stamps.set(`${id}:${openTurn}/${openStep}/${chunk.index}`, performance.now());
    });
    return () => {
      offEvents();
      offChunks();
    };
  };

  /** Records how long `event` took to reach the consumer of session `id` (committed events and block starts). */
  received(id: string, event: TurnEvent): void {
    const key =
      "seq" in event
        ? `${id}:${event.seq}`
        : event.type === "text-start" || event.type === "reasoning-start" || event.type === "tool-call-start"
          ? `${id}:${event.turn}/${event.step}/${event.index}`
          : undefined;
    if (key === undefined) return;
    const at = this.#stamps.get(key);
    if (at === undefined) return;
    this.#stamps.delete(key);
    (event.type === "turn-end" ? this.turnEnds : this.samples).push(performance.now() - at);
  }

  /** Drops the samples so far (after a warm-up). */
  reset(): void {
    this.samples.length = 0;
    this.turnEnds.length = 0;
    this.#stamps.clear();
  }
}

export function percentile(samples: readonly number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}
