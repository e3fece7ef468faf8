// Helpers for reconstruction tests: an independent history fold, the dispatch point of a step,
// a recursive undefined-value finder, and a spy on the headers the HeaderWriter was given.
import { vi } from "vitest";
import { type EpochHeader, HeaderWriter } from "../../src/header/index.js";
import type { Message } from "../../src/messages/index.js";
import { deriveEventMessage, type SessionEvent } from "../../src/session/index.js";

export const isHeaderEvent = (e: SessionEvent): boolean =>
  e.type === "request/header" || e.type === "request/header-delta";

/** Index just past the header events that directly follow the step/start at `stepStartSeq`. */
export function dispatchIndex(events: readonly SessionEvent[], stepStartSeq: number): number {
  let i = stepStartSeq + 1;
  while (i < events.length && isHeaderEvent(events[i]!)) i++;
  return i;
}

/** The derived history after `events`, folded naively: append pushes, replace splices a copy. */
export function naiveHistory(events: readonly SessionEvent[]): Message[] {
  let nodes: Message[] = [];
  for (const e of events) {
    const op = e.surfaceOp;
    if (op === undefined) continue;
    const message = deriveEventMessage(e)!;
    nodes = op === "append" ? [...nodes, message] : [...nodes.slice(0, op.start), message, ...nodes.slice(op.end + 1)];
  }
  return nodes;
}

/** Paths (like `$.messages[0].content`) at which `value` holds `undefined`. */
export function undefinedPaths(value: unknown, path = "$"): string[] {
  if (value === undefined) return [path];
  if (Array.isArray(value)) return value.flatMap((v, i) => undefinedPaths(v, `${path}[${i}]`));
  if (value !== null && typeof value === "object")
    return Object.entries(value).flatMap(([k, v]) => undefinedPaths(v, `${path}.${k}`));
  return [];
}

/** Runs `build` and returns the headers every HeaderWriter was asked to record, in order. */
export function headersUsedWhile<T>(build: () => T): { result: T; used: EpochHeader[] } {
  const spy = vi.spyOn(HeaderWriter.prototype, "record");
  try {
    const result = build();
    return { result, used: spy.mock.calls.map(([h]) => h) };
  } finally {
    spy.mockRestore();
  }
}
