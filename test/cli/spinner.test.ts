// The chat spinner over injected timers and a fake output: silent off a terminal, one frame per
// tick, one interval however often it is (re)labelled, and an erased line on stop.
import { describe, expect, test } from "vitest";
import { Spinner, type SpinnerTimers } from "../../src/cli/spinner.js";

const ERASE = "\r\x1b[2K";
const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

interface FakeInterval {
  readonly fn: () => void;
  readonly ms: number;
  cleared: boolean;
}

class FakeTimers implements SpinnerTimers {
  readonly intervals: FakeInterval[] = [];
  setInterval(fn: () => void, ms: number): unknown {
    const handle: FakeInterval = { fn, ms, cleared: false };
    this.intervals.push(handle);
    return handle;
  }
  clearInterval(handle: unknown): void {
    (handle as FakeInterval).cleared = true;
  }
  get active(): FakeInterval[] {
    return this.intervals.filter((h) => !h.cleared);
  }
  /** Fires every live interval once. */
  tick(): void {
    for (const h of this.active) h.fn();
  }
}

const fakeOut = (isTTY?: boolean) => {
  const writes: string[] = [];
  return { ...(isTTY === undefined ? {} : { isTTY }), writes, write: (t: string) => writes.push(t) };
};

describe("Spinner", () => {
  test.each([[undefined], [false]])(
    "draws nothing and starts no timer when the output is not a TTY (isTTY %s)",
    (isTTY) => {
      const out = fakeOut(isTTY);
      const timers = new FakeTimers();
      const spinner = new Spinner(out, timers);
      spinner.start("thinking");
      timers.tick();
      expect(spinner.spinning).toBe(false);
      spinner.stop();
      expect(out.writes).toEqual([]);
      expect(timers.intervals).toEqual([]);
    },
  );

  test("draws the first frame at once, then one frame per tick (80 ms), wrapping round", () => {
    const out = fakeOut(true);
    const timers = new FakeTimers();
    const spinner = new Spinner(out, timers);
    spinner.start("thinking");
    expect(spinner.spinning).toBe(true);
    expect(out.writes).toEqual([`${ERASE}⠋ thinking`]);
    expect(timers.intervals.map((h) => h.ms)).toEqual([80]);
    for (let i = 0; i < 10; i++) timers.tick();
    expect(out.writes).toEqual([...FRAMES, FRAMES[0]].map((f) => `${ERASE}${f} thinking`));
  });

  test("relabelling while spinning keeps the one interval and shows the new label from the next tick", () => {
    const out = fakeOut(true);
    const timers = new FakeTimers();
    const spinner = new Spinner(out, timers);
    spinner.start("thinking");
    spinner.start("running read");
    expect(timers.intervals).toHaveLength(1);
    expect(out.writes).toEqual([`${ERASE}⠋ thinking`]);
    timers.tick();
    expect(out.writes.at(-1)).toBe(`${ERASE}⠙ running read`);
  });

  test("stop clears the interval and erases the line; a later tick or stop writes nothing", () => {
    const out = fakeOut(true);
    const timers = new FakeTimers();
    const spinner = new Spinner(out, timers);
    spinner.start("thinking");
    timers.tick();
    spinner.stop();
    expect(spinner.spinning).toBe(false);
    expect(timers.intervals).toHaveLength(1);
    expect(timers.active).toEqual([]);
    expect(out.writes).toEqual([`${ERASE}⠋ thinking`, `${ERASE}⠙ thinking`, ERASE]);
    timers.tick();
    spinner.stop();
    expect(out.writes).toHaveLength(3);
  });

  test("stop when never started writes nothing and touches no timer", () => {
    const out = fakeOut(true);
    const timers = new FakeTimers();
    let cleared = 0;
    const spinner = new Spinner(out, { setInterval: timers.setInterval.bind(timers), clearInterval: () => cleared++ });
    spinner.stop();
    expect(out.writes).toEqual([]);
    expect(cleared).toBe(0);
  });

  test("starts again after a stop with a fresh interval", () => {
    const out = fakeOut(true);
    const timers = new FakeTimers();
    const spinner = new Spinner(out, timers);
    spinner.start("thinking");
    spinner.stop();
    spinner.start("running bash");
    expect(spinner.spinning).toBe(true);
    expect(timers.intervals).toHaveLength(2);
    expect(timers.active).toEqual([timers.intervals[1]]);
    expect(out.writes.at(-1)).toBe(`${ERASE}⠙ running bash`); // frames continue where they stopped
  });
});
