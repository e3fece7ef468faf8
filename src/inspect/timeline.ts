// The timeline of one session as flat rows (turns → steps → messages), a pure fold over the
// events: loop-instance boundaries (the turn whose first header snapshot is `initial` or
// `resume`, and a fork's seed boundary), tool calls and results, retries, compactions with the
// seqs they replaced, header records, crash-repair closers marked as such, and the child session
// a subagent call's result names.
// Each event's own row is its line in the row form of src/event-text's table.
import { eventLine } from "../event-text/index.js";
import { type AnySessionEvent, type Session, subagentLinks } from "../session/index.js";
import type { TimelineRow } from "./types.js";

/** The rows of `session`; `requestOf` maps a step's `step/start` seq to its 1-based request index. */
export function timelineRows(session: Session, requestOf: ReadonlyMap<number, number>): TimelineRow[] {
  const events = session.events as readonly AnySessionEvent[];
  const seedLength = session.header.parentSession === undefined ? 0 : (session.header.seedLength ?? 0);
  const instanceTurns = instanceStarts(events);
  const repaired = repairClosers(events);
  const children = new Map(subagentLinks(events, session.id).map((l) => [l.resultSeq, l.session]));
  const rows: TimelineRow[] = [];
  const view = { form: "row", requestOf } as const;
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
    rows.push({
      seq: event.seq,
      ...eventLine(event, view),
      ...(inherited ? { inherited } : {}),
      ...(repaired.has(event.seq) ? { repair: true } : {}),
      ...(event.sourceEventSeqs === undefined ? {} : { replaces: event.sourceEventSeqs }),
      ...(children.has(event.seq) ? { child: children.get(event.seq)! } : {}),
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
