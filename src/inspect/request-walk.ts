// Every reconstructed request of a log, one at a time. `reconstructRequests` hands back all of
// them as lazy objects that memoize their history and request once read; the array holding them
// would then keep every one materialized, O(requests × history) — quadratic in the log (a
// 120k-event log: gigabytes; issue #20 F6). `eachRequest` drops each from that array before
// yielding it, so a caller that does not keep it holds at most one materialized request.
import { type ReconstructedRequest, reconstructRequests } from "../reconstruct/index.js";
import type { SessionEvent } from "../session/index.js";

/** The requests of `events` in order (throws what `reconstructRequests` throws, before the first). */
export function* eachRequest(events: readonly SessionEvent[]): Generator<ReconstructedRequest> {
  const all: (ReconstructedRequest | undefined)[] = reconstructRequests(events);
  for (let i = 0; i < all.length; i++) {
    const r = all[i]!;
    all[i] = undefined;
    yield r;
  }
}
