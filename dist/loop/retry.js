const defaultSleep = (ms, signal) => new Promise((resolve) => {
    if (signal.aborted)
        return resolve();
    const timer = setTimeout(done, ms);
    function done() {
        clearTimeout(timer);
        signal.removeEventListener("abort", done);
        resolve();
    }
    signal.addEventListener("abort", done, { once: true });
});
/** The backoff before retrying after failed attempt `attempt` (1-based). */
export function retryDelay(policy, attempt, retryAfterMs) {
    if (retryAfterMs !== undefined)
        return Math.round(retryAfterMs);
    const base = policy.baseDelayMs ?? 1000;
    const capped = Math.min(policy.maxDelayMs ?? 30_000, base * 2 ** (attempt - 1));
    const jitter = policy.jitter ?? 0.2;
    const spread = 1 + jitter * (2 * (policy.random ?? Math.random)() - 1);
    return Math.max(0, Math.round(capped * spread));
}
/** Runs `attempt` until it succeeds, fails for good, or the signal aborts. */
export async function withRetries(policy, signal, attempt, log) {
    const maxAttempts = Math.max(1, policy.maxAttempts ?? 5);
    for (let n = 1;; n++) {
        const result = await attempt();
        const error = result.error;
        if (result.finish !== "error" || error?.retryable !== true || n >= maxAttempts || signal.aborted)
            return result;
        const delayMs = retryDelay(policy, n, error.retryAfterMs);
        log(n, error.code ?? "provider-error", delayMs);
        await (policy.sleep ?? defaultSleep)(delayMs, signal);
        if (signal.aborted)
            return { content: [], finish: "aborted" };
    }
}
//# sourceMappingURL=retry.js.map