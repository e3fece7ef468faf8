// The hostile-logs oracle's independent view of a file: what its bytes say, decoded strictly
// (fatal UTF-8, one JSON value per "\n"-terminated line, a `"format":"keelson-session"` header
// line) without any of Keelson's grammar. The oracle compares a load against this view and
// against the original log; it never asks the code under test what the file means.
import { isDeepStrictEqual } from "node:util";
import type { ReconstructedRequest } from "../src/reconstruct/index.js";
import type { SessionEvent, SessionMeta } from "../src/session/index.js";

export type Decoded =
  | { readonly ok: true; readonly header: unknown; readonly events: readonly unknown[]; readonly tornBytes: number }
  | { readonly ok: false; readonly reason: string };

const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** The file's committed lines decoded strictly; the bytes after the last "\n" are a torn tail. */
export function decodeReference(bytes: Buffer): Decoded {
  const end = bytes.lastIndexOf(0x0a) + 1;
  let text: string;
  try {
    text = strictUtf8.decode(bytes.subarray(0, end));
  } catch {
    return { ok: false, reason: "the committed lines are not valid UTF-8" };
  }
  const lines = end === 0 ? [] : text.slice(0, -1).split("\n");
  if (lines.length === 0) return { ok: false, reason: "no complete header line" };
  const values: unknown[] = [];
  for (let i = 0; i < lines.length; i++) {
    try {
      values.push(JSON.parse(lines[i]!));
    } catch {
      return { ok: false, reason: `line ${i + 1} is not JSON` };
    }
  }
  const first = values[0];
  if (
    typeof first !== "object" ||
    first === null ||
    Array.isArray(first) ||
    (first as { format?: unknown }).format !== "keelson-session"
  ) {
    return { ok: false, reason: "line 1 is not a keelson-session header" };
  }
  const { format: _format, ...header } = first as Record<string, unknown>;
  return { ok: true, header, events: values.slice(1), tornBytes: bytes.length - end };
}

export interface OriginalLog {
  readonly header: SessionMeta;
  readonly events: readonly SessionEvent[];
  readonly requests: readonly ReconstructedRequest[];
  readonly bytes: Buffer;
}

/** True when the decoded file is the original's header and a prefix (possibly all) of its events. */
export function isPrefixOf(decoded: Decoded & { ok: true }, original: OriginalLog): boolean {
  if (!isDeepStrictEqual(decoded.header, original.header)) return false;
  if (decoded.events.length > original.events.length) return false;
  return decoded.events.every((e, i) => isDeepStrictEqual(e, original.events[i]));
}

/** 1-based number of the first line whose bytes differ from the original's (Infinity when none does). */
export function firstChangedLine(bytes: Buffer, original: Buffer): number {
  let line = 1;
  const n = Math.min(bytes.length, original.length);
  for (let i = 0; i < n; i++) {
    if (bytes[i] !== original[i]) return line;
    if (bytes[i] === 0x0a) line++;
  }
  return bytes.length === original.length ? Number.POSITIVE_INFINITY : line;
}

/** A reconstructed request as plain data (its lazy parts materialized), for deep comparison. */
export const requestView = (r: ReconstructedRequest): unknown => ({
  turn: r.turn,
  step: r.step,
  stepStartSeq: r.stepStartSeq,
  header: r.header,
  history: r.history,
  request: r.request,
});

/** Events that mark a step's request as dispatched (see src/reconstruct/reconstruct.ts). */
const AFTER_DISPATCH = new Set(["assistant/message", "llm/retry", "tool/call", "tool/result", "step/end"]);

/** For each `step/start` seq, the seq of the event that dispatched it (its first model output or its end). */
export function dispatchSeqs(events: readonly SessionEvent[]): Map<number, number> {
  const out = new Map<number, number>();
  let open: number | undefined;
  for (const e of events) {
    if (open !== undefined && AFTER_DISPATCH.has(e.type)) {
      out.set(open, e.seq);
      open = undefined;
    }
    if (e.type === "step/start") open = e.seq;
  }
  return out;
}
