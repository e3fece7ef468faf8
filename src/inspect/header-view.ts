// Header changes for the side-by-side diff: every `request/header` snapshot (with its reason:
// initial, resume, fallback) and `request/header-delta` of the log, with the folded header in
// force before and after it and which arms (system, tools, config, prefix) differ.
import { type EpochHeader, foldHeaderEvent } from "../header/index.js";
import { canonicalJson, type JsonValue } from "../json/index.js";
import type { Session, SessionEvent } from "../session/index.js";
import type { HeaderChange } from "./types.js";

const ARMS = ["system", "tools", "config", "messagePrefix"] as const;

export function headerChanges(session: Session): HeaderChange[] {
  const out: HeaderChange[] = [];
  let current: EpochHeader | undefined;
  for (const event of session.events) {
    if (event.type !== "request/header" && event.type !== "request/header-delta") continue;
    const next = foldHeaderEvent(current, event)!;
    const snapshot = event.type === "request/header";
    out.push({
      seq: event.seq,
      kind: snapshot ? "snapshot" : "delta",
      ...(snapshot ? { reason: (event as SessionEvent<"request/header">).data.reason } : {}),
      changed: snapshot
        ? ARMS.filter((arm) => current === undefined || !same(current[arm], next[arm]))
        : ARMS.filter((arm) => arm in (event.data as object)),
      ...(current === undefined ? {} : { before: current }),
      after: next,
    });
    current = next;
  }
  return out;
}

function same(a: unknown, b: unknown): boolean {
  return canonicalJson((a ?? null) as JsonValue) === canonicalJson((b ?? null) as JsonValue);
}
