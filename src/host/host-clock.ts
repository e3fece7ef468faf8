// The host's default clock: wall time and `setTimeout`, unref'd, so a host's idle-eviction timer
// never keeps a process alive (a server's listening socket does that; a script ends when done).
import type { HostClock } from "./types.js";

export const systemClock: HostClock = {
  now: () => Date.now(),
  setTimer(fn, ms) {
    const timer = setTimeout(fn, ms);
    timer.unref();
    return () => clearTimeout(timer);
  },
};
