// The timeline of one session as flat rows (turns → steps → messages), a pure fold over the
// events: loop-instance boundaries (the turn whose first header snapshot is `initial` or
// `resume`, and a fork's seed boundary), tool calls and results, retries, compactions with the
// seqs they replaced, header records, and crash-repair closers marked as such.
import type { EpochHeader } from "../header/index.js";
import type { AnySessionEvent, Session, SessionEvent } from "../session/index.js";
import { contentText, preview } from "./text.js";
import type { TimelineRow } from "./types.js";

/** The rows of `session`; `requestOf` maps a step's `step/start` seq to its 1-based request index. */
export function timelineRows(session: Session, requestOf: ReadonlyMap<number, number>): TimelineRow[] {
  const events = session.events as readonly AnySessionEvent[];
  const seedLength = session.header.parentSession === undefined ? 0 : (session.header.seedLength ?? 0);
  const instanceTurns = instanceStarts(events);
  const repaired = repairClosers(events);
  const rows: TimelineRow[] = [];
  let instance = 0;
  for (const event of events) {
    const inherited = event.seq < seedLength;
    if (event.seq === seedLength && seedLength > 0) rows.push(forkRow(session, seedLength));
    if (event.type === "turn/start") {
      const reason = instanceTurns.get(event.data.turn);
      if (reason !== undefined)
        rows.push({
          seq: event.seq,
          kind: "instance",
          depth: 0,
          text: `loop instance ${++instance} (${reason === "initial" ? "new session" : reason})`,
          ...(inherited ? { inherited } : {}),
        });
    }
    const row = rowOf(event, requestOf);
    rows.push({
      ...row,
      ...(inherited ? { inherited } : {}),
      ...(repaired.has(event.seq) ? { repair: true } : {}),
      ...(event.sourceEventSeqs === undefined ? {} : { replaces: event.sourceEventSeqs }),
    });
  }
  if (seedLength > 0 && seedLength === events.length) rows.push(forkRow(session, seedLength));
  return rows;
}

function forkRow(session: Session, seedLength: number): TimelineRow {
  return {
    seq: seedLength,
    kind: "instance",
    depth: 0,
    text: `fork of ${session.header.parentSession}: the ${seedLength} events above are the parent's; this session's own start here`,
  };
}

/** The turns that open a loop instance, with the reason of the snapshot that anchors it. */
function instanceStarts(events: readonly AnySessionEvent[]): Map<number, string> {
  const out = new Map<number, string>();
  let turn = 0;
  for (const e of events) {
    if (e.type === "turn/start") turn = e.data.turn;
    else if (e.type === "request/header" && e.data.reason !== "fallback" && !out.has(turn))
      out.set(turn, e.data.reason);
  }
  return out;
}

/** Seqs of crash-repair closers: the run of closing events that ends in `turn/end { interrupted }`. */
function repairClosers(events: readonly AnySessionEvent[]): Set<number> {
  const out = new Set<number>();
  for (const e of events) {
    if (e.type !== "turn/end" || e.data.reason.kind !== "interrupted") continue;
    out.add(e.seq);
    for (let i = e.seq - 1; i >= 0; i--) {
      const c = events[i]!;
      const closer =
        c.type === "step/end" ||
        c.type === "tool/call" ||
        (c.type === "tool/result" && c.data.error === "interrupted") ||
        (c.type === "compact/end" && c.data.error === "interrupted");
      if (!closer || c.time !== e.time) break;
      out.add(c.seq);
    }
  }
  return out;
}

type Row = Omit<TimelineRow, "inherited" | "repair" | "replaces">;

function rowOf(event: AnySessionEvent, requestOf: ReadonlyMap<number, number>): Row {
  const at = { seq: event.seq };
  switch (event.type) {
    case "turn/start":
      return {
        ...at,
        kind: "turn",
        depth: 0,
        turn: event.data.turn,
        text: `turn ${event.data.turn} (${event.data.trigger})`,
      };
    case "turn/end": {
      const r = event.data.reason;
      const why =
        r.kind === "error" ? `: ${r.message}` : r.kind === "aborted" || r.kind === "rejected" ? `: ${r.reason}` : "";
      return {
        ...at,
        kind: "turn-end",
        depth: 0,
        turn: event.data.turn,
        text: `turn ${event.data.turn} ends ${r.kind}${why}`,
        ...(r.kind === "completed" ? {} : { error: true }),
      };
    }
    case "step/start": {
      const request = requestOf.get(event.seq);
      return {
        ...at,
        kind: "step",
        depth: 1,
        turn: event.data.turn,
        step: event.data.step,
        text: `step ${event.data.turn}.${event.data.step}${request === undefined ? " (sent no request)" : ` — request ${request}`}`,
        ...(request === undefined ? {} : { request }),
      };
    }
    case "step/end":
      return {
        ...at,
        kind: "step-end",
        depth: 1,
        turn: event.data.turn,
        step: event.data.step,
        text: `step ${event.data.turn}.${event.data.step} ends${event.data.dispatched === false ? " (not dispatched)" : ""}`,
      };
    case "user/message":
      return {
        ...at,
        kind: "user",
        depth: 2,
        text: `user${event.data.source === "user" ? "" : ` (${event.data.source})`}: ${preview(contentText(event.data.content))}`,
      };
    case "context/message":
      return {
        ...at,
        kind: "context",
        depth: 2,
        text: `context (${event.data.source}): ${preview(contentText(event.data.content))}`,
      };
    case "steering/message":
      return {
        ...at,
        kind: "steering",
        depth: 2,
        text: `steering (${event.data.source}): ${preview(contentText(event.data.content))}`,
      };
    case "prompt/blocked":
      return {
        ...at,
        kind: "blocked",
        depth: 2,
        error: true,
        text: `prompt blocked (${event.data.reason}): ${preview(contentText(event.data.content))}`,
      };
    case "assistant/message": {
      const u = event.data.usage;
      const usage =
        u === undefined
          ? ""
          : `  [in ${u.inputTokens} · read ${u.cacheReadTokens} · write ${u.cacheWriteTokens} · out ${u.outputTokens}]`;
      return {
        ...at,
        kind: "assistant",
        depth: 2,
        turn: event.data.turn,
        step: event.data.step,
        text: `assistant: ${preview(contentText(event.data.content))}${usage}`,
      };
    }
    case "tool/call":
      return {
        ...at,
        kind: "tool-call",
        depth: 2,
        turn: event.data.turn,
        step: event.data.step,
        text: `tool call ${event.data.name}(${preview(event.data.arguments, 100)}) [${event.data.callId}]`,
      };
    case "tool/result": {
      const d = event.data;
      const pruned = d.meta?.prunedFrom === undefined ? "" : ` (pruned from #${String(d.meta.prunedFrom)})`;
      return {
        ...at,
        kind: "tool-result",
        depth: 2,
        turn: d.turn,
        step: d.step,
        text: `tool result [${d.callId}]${d.isError ? ` error${d.error ? ` (${d.error})` : ""}` : ""}${pruned}: ${preview(contentText(d.content))}`,
        ...(d.isError ? { error: true } : {}),
      };
    }
    case "request/header": {
      const h = event.data.header as unknown as EpochHeader;
      const prefix = h.messagePrefix?.length ?? 0;
      return {
        ...at,
        kind: "header",
        depth: 2,
        text: `header snapshot (${event.data.reason}): model ${h.config.model} · ${h.tools?.length ?? 0} tools · prefix ${prefix} message(s)`,
      };
    }
    case "request/header-delta":
      return {
        ...at,
        kind: "header-delta",
        depth: 2,
        text: `header delta: ${Object.keys(event.data).join(", ") || "(empty)"}`,
      };
    case "llm/retry":
      return {
        ...at,
        kind: "retry",
        depth: 2,
        turn: event.data.turn,
        step: event.data.step,
        error: true,
        text: `retry ${event.data.turn}.${event.data.step} attempt ${event.data.attempt}: ${event.data.code}, after ${event.data.delayMs} ms`,
      };
    case "compact/start":
      return {
        ...at,
        kind: "compact-start",
        depth: 1,
        text: `compaction starts (${event.data.trigger}${event.data.estimatedTokens === undefined ? "" : `, ≈${event.data.estimatedTokens} tokens`})`,
      };
    case "compact/summary": {
      const d = event.data as { regionTokens?: unknown; summaryTokens?: unknown; start?: unknown; end?: unknown };
      return {
        ...at,
        kind: "compact-summary",
        depth: 2,
        text: `compaction summary: history messages ${String(d.start)}..${String(d.end)} (${String(d.regionTokens)} tokens) → a ${String(d.summaryTokens)}-token summary`,
      };
    }
    case "compact/end":
      return {
        ...at,
        kind: "compact-end",
        depth: 1,
        text: `compaction ends${event.data.error === undefined ? "" : ` with error: ${event.data.error}`}`,
        ...(event.data.error === undefined ? {} : { error: true }),
      };
  }
  return { ...at, kind: "context", depth: 2, text: (event as SessionEvent).type };
}
