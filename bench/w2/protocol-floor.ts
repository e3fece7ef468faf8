// W2's floor for the stream ÷ send pair, measured in the same run: what a consumer's `for await`
// costs per step when the same number of events a drained `agent.stream()` yields per step are
// pushed to it through a bare async iterator (one parked promise per event, settled by the
// producer — the cheapest shape the iterator protocol allows), with no Keelson code at all. The
// producer awaits once per event, as the loop awaits the provider's next chunk. Run in a fresh
// process (`node --expose-gc … protocol-floor.ts <eventsPerStep>`); prints `{ usPerStep }`: the
// CPU the consumer adds, the least of five rounds.
import { gc } from "../measure.js";

const STEPS = 200_000;
const ROUNDS = 5;

/** The bare iterator: `next()` parks one promise; the producer settles it with the event. */
export class PushIterator implements AsyncIterableIterator<unknown> {
  #resolve: ((result: IteratorResult<unknown>) => void) | undefined;
  readonly #park = (resolve: (result: IteratorResult<unknown>) => void): void => {
    this.#resolve = resolve;
  };
  next(): Promise<IteratorResult<unknown>> {
    return new Promise(this.#park);
  }
  [Symbol.asyncIterator](): this {
    return this;
  }
  push(result: IteratorResult<unknown>): void {
    const resolve = this.#resolve;
    this.#resolve = undefined;
    resolve?.(result);
  }
}

async function produce(eventsPerStep: number, to?: PushIterator): Promise<void> {
  for (let step = 0; step < STEPS; step++)
    for (let e = 0; e < eventsPerStep; e++) {
      await null;
      to?.push({ done: false, value: { type: "event", step, index: e } });
    }
  await null;
  to?.push({ done: true, value: undefined });
}

async function drain(events: AsyncIterable<unknown>): Promise<number> {
  let n = 0;
  for await (const _event of events) n++;
  return n;
}

const cpu = (since: NodeJS.CpuUsage): number => {
  const { user, system } = process.cpuUsage(since);
  return user + system;
};

export async function protocolFloor(eventsPerStep: number): Promise<number> {
  let least = Number.POSITIVE_INFINITY;
  for (let round = 0; round < ROUNDS; round++) {
    gc();
    let start = process.cpuUsage();
    await produce(eventsPerStep);
    const alone = cpu(start);
    gc();
    const iterator = new PushIterator();
    start = process.cpuUsage();
    const drained = drain(iterator);
    await produce(eventsPerStep, iterator);
    if ((await drained) !== STEPS * eventsPerStep) throw new Error("the consumer missed events");
    least = Math.min(least, (cpu(start) - alone) / STEPS);
  }
  return least;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const eventsPerStep = Number(process.argv[2]);
  if (!Number.isInteger(eventsPerStep) || eventsPerStep < 1)
    throw new Error("usage: protocol-floor.ts <eventsPerStep>");
  console.log(JSON.stringify({ usPerStep: await protocolFloor(eventsPerStep) }));
}
