// The timeline: turns → steps → messages as virtualized rows, with loop-instance boundaries,
// retries, compactions (what they replaced), crash-repair closers and verify problems in place;
// a click shows the full event, a step links to its request, a subagent call's result to the
// child session; `focus` (the route's seq, a child's link back) selects and scrolls to a row.
import { useEffect, useMemo, useState } from "preact/hooks";
import type { SessionPayload, TimelineRow, VerifyPayload } from "../types.js";
import { getJson, sessionPath } from "./api.js";
import { href } from "./route.js";
import { VirtualList } from "./virtual-list.js";

const ROW = 24;

export function TimelineView({
  data,
  verify,
  focus,
}: {
  data: SessionPayload;
  verify: VerifyPayload | undefined;
  focus?: number | undefined;
}) {
  const [selected, setSelected] = useState<number | undefined>(focus);
  useEffect(() => setSelected(focus), [focus]);
  const focusIndex = useMemo(
    () => (focus === undefined ? undefined : data.rows.findIndex((r) => r.seq === focus && r.kind !== "instance")),
    [focus, data.rows],
  );
  const [event, setEvent] = useState<unknown>();
  const problems = useMemo(() => {
    const bySeq = new Map<number, string>();
    for (const p of verify?.problems ?? [])
      if (p.seq !== undefined)
        bySeq.set(p.seq, `${p.where}${p.line === undefined ? "" : `:${p.line}`}: ${p.code}: ${p.message}`);
    return bySeq;
  }, [verify]);
  useEffect(() => {
    if (selected === undefined) return;
    getJson<unknown>(sessionPath(data.id, `/events/${selected}`)).then(setEvent, (e: Error) => setEvent(e.message));
  }, [selected, data.id]);
  useEffect(() => {
    // first paint of the timeline, for the browser test's budget (< 1 s on a 10k-event log)
    requestAnimationFrame(() => performance.mark("keelson-timeline-painted"));
  }, []);
  const render = (row: TimelineRow) => (
    // biome-ignore lint/a11y/useSemanticElements: a row holds a link to its request, which a <button> may not contain
    <div
      class={`row k-${row.kind} d${row.depth}${row.error ? " err" : ""}${row.repair ? " repair" : ""}${row.inherited ? " inherited" : ""}${selected === row.seq && row.kind !== "instance" ? " sel" : ""}`}
      data-seq={row.seq}
      data-kind={row.kind}
      role="button"
      tabIndex={row.kind === "instance" ? -1 : 0}
      onClick={() => row.kind !== "instance" && setSelected(row.seq)}
      onKeyDown={(e) => e.key === "Enter" && row.kind !== "instance" && setSelected(row.seq)}
    >
      <span class="seq">{row.kind === "instance" ? "" : `#${row.seq}`}</span>
      <span class="text">{row.text}</span>
      {row.request !== undefined && (
        <a
          class="badge"
          href={href({ page: "session", id: data.id, tab: "request", n: row.request })}
          onClick={(e) => e.stopPropagation()}
        >
          request {row.request}
        </a>
      )}
      {row.child !== undefined && (
        <a
          class="badge"
          data-testid="subagent-link"
          href={href({ page: "session", id: row.child, tab: "timeline" })}
          onClick={(e) => e.stopPropagation()}
        >
          subagent session →
        </a>
      )}
      {row.replaces !== undefined && <span class="badge">replaces {row.replaces.map((s) => `#${s}`).join(" ")}</span>}
      {row.repair && <span class="badge warn">crash repair</span>}
      {row.inherited && <span class="badge">parent's</span>}
      {problems.has(row.seq) && row.kind !== "instance" && (
        <span class="badge bad" title={problems.get(row.seq)}>
          ⚠ {problems.get(row.seq)}
        </span>
      )}
    </div>
  );
  return (
    <div class="split">
      <VirtualList items={data.rows} rowHeight={ROW} render={render} scrollTo={focusIndex} testId="timeline" />
      <aside class="detail" data-testid="event-detail">
        {selected === undefined ? (
          <p class="muted">click a row to see its event</p>
        ) : (
          <pre>{typeof event === "string" ? event : JSON.stringify(event, null, 2)}</pre>
        )}
      </aside>
    </div>
  );
}
