// Retrying a provider call inside one step: a failed attempt whose error is retryable (429,
// overloaded, 5xx, connection drops, stalls) is logged as a non-surface `llm/retry` event and
// retried after a capped exponential backoff with jitter (or the provider's `retry-after`).
// A failed attempt's partial stream is discarded: only the final attempt's result can reach
// history. Non-retryable failures and exhausted attempts return the error result as is.
import type { AssistantResult } from "../llm/core.js";
import type { AbortState } from "../tools/index.js";

export interface RetryPolicy {
  /** Total attempts per step, the first included. Default 5. */
  readonly maxAttempts?: number;
  /** First backoff (ms); doubles per attempt. Default 1000. */
  readonly baseDelayMs?: number;
  /** Cap on the computed backoff (ms). A provider's retry-after is honoured as given. Default 30 000. */
  readonly maxDelayMs?: number;
  /** ± fraction of random spread on the backoff. Default 0.2. */
  readonly jitter?: number;
  /** Abortable wait; tests pass one that resolves at once. */
  readonly sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  readonly random?: () => number;
}

export type RetryAttemptLog = (attempt: number, code: string, delayMs: number) => void;

const defaultSleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });

/** The backoff before retrying after failed attempt `attempt` (1-based). */
export function retryDelay(policy: RetryPolicy, attempt: number, retryAfterMs: number | undefined): number {
  if (retryAfterMs !== undefined) return Math.round(retryAfterMs);
  const base = policy.baseDelayMs ?? 1000;
  const capped = Math.min(policy.maxDelayMs ?? 30_000, base * 2 ** (attempt - 1));
  const jitter = policy.jitter ?? 0.2;
  const spread = 1 + jitter * (2 * (policy.random ?? Math.random)() - 1);
  return Math.max(0, Math.round(capped * spread));
}

/**
 * Runs `attempt` until it succeeds, fails for good, or the signal aborts. An attempt that answers
 * synchronously and needs no retry costs no async frame (the replay's model: decision 0032).
 */
export function withRetries(
  policy: RetryPolicy,
  abort: AbortState,
  attempt: () => AssistantResult | Promise<AssistantResult>,
  log: RetryAttemptLog,
): Promise<AssistantResult> {
  let first: AssistantResult | Promise<AssistantResult>;
  try {
    first = attempt();
  } catch (error) {
    return Promise.reject(error);
  }
  if (!(first instanceof Promise) && isFinal(policy, abort, first, 1)) return Promise.resolve(first);
  return retrying(policy, abort, attempt, log, first);
}

const isFinal = (policy: RetryPolicy, abort: AbortState, result: AssistantResult, n: number): boolean =>
  result.finish !== "error" ||
  result.error?.retryable !== true ||
  n >= Math.max(1, policy.maxAttempts ?? 5) ||
  abort.aborted;

async function retrying(
  policy: RetryPolicy,
  abort: AbortState,
  attempt: () => AssistantResult | Promise<AssistantResult>,
  log: RetryAttemptLog,
  first: AssistantResult | Promise<AssistantResult>,
): Promise<AssistantResult> {
  for (let n = 1; ; n++) {
    const result = await (n === 1 ? first : attempt());
    const error = result.error;
    if (isFinal(policy, abort, result, n) || error === undefined) return result;
    const delayMs = retryDelay(policy, n, error.retryAfterMs);
    log(n, error.code ?? "provider-error", delayMs);
    await (policy.sleep ?? defaultSleep)(delayMs, abort.signal);
    if (abort.aborted) return { content: [], finish: "aborted" };
  }
}
