// A provider SDK's event stream, read only until its request is aborted. An SDK's iterator is
// meant to end or throw once its signal aborts, but each official SDK over Node's fetch (Anthropic,
// OpenAI, Gemini), aborted after a whole answer had arrived, hands out what it had buffered and
// then waits for ever on a body that will never say more
// (found from outside: a turn cancelled mid-stream hung with its session locked, 1 in 4 cancels
// against a fast local server). So the abort itself ends the read: nothing is awaited from the
// SDK after it, and its iterator is closed without waiting for the close.
const ABORTED = Symbol("aborted");

export async function* untilAborted<E>(events: AsyncIterable<E>, signal: AbortSignal): AsyncGenerator<E> {
  const iterator = events[Symbol.asyncIterator]();
  /** Settles the read in flight as aborted (set only while one is). */
  let wake: ((aborted: typeof ABORTED) => void) | undefined;
  const onAbort = (): void => wake?.(ABORTED);
  signal.addEventListener("abort", onAbort, { once: true });
  let ended = false;
  try {
    while (!signal.aborted) {
      const next = iterator.next();
      const read = await new Promise<IteratorResult<E> | typeof ABORTED>((resolve, reject) => {
        wake = resolve;
        next.then(resolve, reject);
      });
      wake = undefined;
      if (read === ABORTED) {
        next.catch(() => {}); // the abandoned read may still reject: nobody waits for it
        return;
      }
      if (read.done === true) {
        ended = true;
        return;
      }
      yield read.value;
    }
  } finally {
    signal.removeEventListener("abort", onAbort);
    if (!ended) closeQuietly(iterator);
  }
}

/** `iterator.return()`, not awaited (it may never settle either), its failure ignored. */
function closeQuietly(iterator: AsyncIterator<unknown>): void {
  try {
    iterator.return?.().catch(() => {});
  } catch {
    // a return() that throws at once: the request's own abort releases the connection
  }
}
