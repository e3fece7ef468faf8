// The agent profile of W6's following rows (bench/w6/follow.ts), loaded by `keelson worker
// --profiles <this file>`: a model that answers after KEELSON_BENCH_LATENCY_MS (default 200) and
// then streams its answer in 9 deltas 10 ms apart, as a model streaming ~100 tokens/s would. The
// first delta is the wall-clock time it was sent — `t<ms since the epoch, µs precision> ` — so a
// follower in another process on the same machine measures the time from the provider's first
// token to its own first text delta.
const latencyMs = Number(process.env.KEELSON_BENCH_LATENCY_MS ?? 200);
const WORDS = ["Understood:", " this", " answer", " streams", " in", " nine", " small", " deltas."];

const sleep = (ms, signal) =>
  new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });

const streaming = {
  id: "bench-stream",
  async *stream(request) {
    await sleep(latencyMs, request.signal);
    yield { type: "block-start", index: 0, block: { type: "text" } };
    yield { type: "text-delta", index: 0, text: `t${(performance.timeOrigin + performance.now()).toFixed(3)} ` };
    for (const word of WORDS) {
      await sleep(10, request.signal);
      if (request.signal.aborted) break;
      yield { type: "text-delta", index: 0, text: word };
    }
    yield { type: "block-end", index: 0 };
    yield { type: "usage", usage: { inputTokens: 20, outputTokens: 12, cacheReadTokens: 0, cacheWriteTokens: 0 } };
    yield { type: "finish", reason: request.signal.aborted ? "aborted" : "stop" };
  },
};

export const profiles = {
  stamped: { provider: streaming, model: "bench:stream" },
};

export default profiles;
