// Shared pieces of the hook-bus tests: a small event map, a bus that records contained
// failures, a deferred for driving async ordering explicitly, and a flush for settled rejections.
import { HookBus } from "../../src/hooks/index.js";
import type { EmitHook, SerialHook, WaterfallHook } from "../../src/hooks/index.js";

/** The event map every hooks test uses (a type alias, as `HookMap` requires). */
export type Events = {
  "agent/status": EmitHook<{ readonly status: string }>;
  "agent/pre-step": SerialHook<{ readonly step: number }>;
  "agent/session-prefix": WaterfallHook<{ readonly seed: readonly string[] }, string[]>;
  "llm/stream": WaterfallHook<{ readonly model: string }, string>;
};

export interface Reported {
  readonly error: unknown;
  readonly hook: string;
}

/** A bus whose contained failures land in `reported` instead of a process warning. */
export function recordingBus(parent?: HookBus<Events>): { bus: HookBus<Events>; reported: Reported[] } {
  const reported: Reported[] = [];
  const report = (error: unknown, hook: string) => {
    reported.push({ error, hook });
  };
  const bus = new HookBus<Events>(parent === undefined ? { report } : { parent, report });
  return { bus, reported };
}

export interface Deferred<T> {
  readonly promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}

export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Lets every pending promise reaction run (one macrotask turn; no timers). */
export const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
