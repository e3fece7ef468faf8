// The host's default clock — wall time and `setTimeout`, unref'd, so a host's idle-eviction timer
// never keeps a process alive (a server's listening socket does that; a script ends when done).
// A delay beyond setTimeout's 2^31 - 1 ms is clamped to it (Node would fire after 1 ms, and a
// 30-day `idleMs` became a sweep every millisecond); the sweep then simply looks again later.
// `checkClock` refuses a caller's clock that is not one at construction (it would fail at the first idle).
import { type HostClock, HostError } from "./types.js";

/** The longest delay setTimeout honours. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

export const systemClock: HostClock = {
  now: () => Date.now(),
  setTimer(fn, ms) {
    const timer = setTimeout(fn, Math.min(Math.max(ms, 0), MAX_TIMER_MS));
    timer.unref();
    return () => clearTimeout(timer);
  },
};

/** `clock` if it is a HostClock (`now()` and `setTimer()` functions); `HostError('invalid-options')` otherwise. */
export function checkClock(clock: unknown): HostClock {
  const c = clock as Partial<HostClock> | null;
  if (typeof c?.now === "function" && typeof c.setTimer === "function") return clock as HostClock;
  throw new HostError("invalid-options", "clock must be a HostClock: { now(), setTimer(fn, ms) → cancel }");
}
