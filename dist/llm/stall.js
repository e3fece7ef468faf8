// withStallTimeout: fails an async stream that goes quiet. If no item arrives within `ms`, it
// calls `onStall` (the adapter aborts its HTTP request there) and throws a retryable
// ProviderError('stalled'). Shared by the adapters: a stall is a transport fact, not a format one.
import { ProviderError } from "./types.js";
export async function* withStallTimeout(source, ms, onStall) {
    const iterator = source[Symbol.asyncIterator]();
    for (;;) {
        let timer;
        const stalled = new Promise((resolve) => {
            timer = setTimeout(() => resolve("stalled"), ms);
        });
        const next = iterator.next();
        const winner = await Promise.race([next, stalled]).finally(() => clearTimeout(timer));
        if (winner === "stalled") {
            next.catch(() => undefined); // the aborted read rejects later; nobody waits for it
            onStall();
            throw new ProviderError("stalled", `the stream sent nothing for ${ms} ms`, { retryable: true });
        }
        if (winner.done === true)
            return;
        yield winner.value;
    }
}
//# sourceMappingURL=stall.js.map