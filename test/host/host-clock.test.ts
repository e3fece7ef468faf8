// The system clock clamps a delay beyond setTimeout's range (found from outside, #22): a 30-day
// idleMs made Node fire the eviction sweep after 1 ms, over and over (2,000 warnings in 2 s).
import { expect, test, vi } from "vitest";
import { MAX_TIMER_MS, systemClock } from "../../src/host/host-clock.js";

test("a 30-day delay is clamped to setTimeout's maximum, not fired at once", () => {
  const spy = vi.spyOn(globalThis, "setTimeout");
  const fired = vi.fn();
  const stop = systemClock.setTimer(fired, 30 * 24 * 3600 * 1000);
  expect(spy).toHaveBeenLastCalledWith(fired, MAX_TIMER_MS);
  stop();
  spy.mockRestore();
  expect(fired).not.toHaveBeenCalled();
});
