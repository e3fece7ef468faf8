// One session: its header line, verify problems (file:line), the tabs, and the live stream —
// appended events replace the timeline's rows from the turn they continue and bump `version`,
// which makes the request, header and cache views fetch again. The live line says how the
// session is followed (notifications, or polling when they do not arrive) and when it stopped.
import { useEffect, useState } from "preact/hooks";
import type { SessionPayload, VerifyPayload } from "../types.js";
import { followSession, getJson, sessionPath } from "./api.js";
import { CacheView } from "./cache-view.js";
import { HeaderView } from "./header-view.js";
import { ReplayView } from "./replay-view.js";
import { RequestView } from "./request-view.js";
import { href, type Route, type Tab } from "./route.js";
import { TimelineView } from "./timeline-view.js";

type SessionRoute = Extract<Route, { page: "session" }>;

export function SessionView({ route }: { route: SessionRoute }) {
  const [data, setData] = useState<SessionPayload>();
  const [error, setError] = useState<string>();
  const [version, setVersion] = useState(0);
  const [verify, setVerify] = useState<VerifyPayload>();
  const [live, setLive] = useState<{ readonly text: string; readonly state: "ok" | "polling" | "problem" }>();
  useEffect(() => {
    let stop: (() => void) | undefined;
    let cancelled = false;
    getJson<SessionPayload>(sessionPath(route.id)).then(
      (payload) => {
        if (cancelled) return;
        setData(payload);
        stop = followSession(route.id, payload.events, {
          onAppend: (m) => {
            setData((d) =>
              d === undefined
                ? d
                : { ...d, events: m.events, rows: [...d.rows.filter((r) => r.seq < m.replaceFrom), ...m.rows] },
            );
            setVersion((v) => v + 1);
          },
          onNotice: (n) => setLive({ text: `live: ${n.message}`, state: n.mode === "polling" ? "polling" : "ok" }),
          onProblem: (message) => setLive({ text: `live: ${message}`, state: "problem" }),
        });
      },
      (e: Error) => setError(e.message),
    );
    return () => {
      cancelled = true;
      stop?.();
    };
  }, [route.id]);
  useEffect(() => {
    // after the first paint: verify folds and reconstructs the whole log
    if (data === undefined) return;
    getJson<VerifyPayload>(sessionPath(route.id, "/verify")).then(setVerify, (e: Error) => setError(e.message));
  }, [data === undefined, version, route.id]);
  useEffect(() => {
    if (version === 0) return;
    // turns, open turn and verify problems follow the log too
    getJson<SessionPayload>(sessionPath(route.id)).then(setData, () => undefined);
  }, [version, route.id]);
  if (error !== undefined) return <p class="problem">{error}</p>;
  if (data === undefined) return <p class="muted">loading…</p>;
  const tab = (t: Tab, label: string) => (
    <a
      class={`tab${route.tab === t ? " active" : ""}`}
      data-testid={`tab-${t}`}
      href={href({ page: "session", id: route.id, tab: t })}
    >
      {label}
    </a>
  );
  return (
    <main class="page session">
      <div class="toolbar">
        <h1 class="mono" data-testid="session-id">
          {data.id}
        </h1>
        <span class="muted" data-testid="session-stats">
          {data.turns} turns · {data.events} events{data.openTurn !== null ? ` · turn ${data.openTurn} open` : ""}
          {data.parentSession !== undefined && (
            <>
              {" "}
              · fork of{" "}
              <a href={href({ page: "session", id: data.parentSession, tab: "timeline" })}>{data.parentSession}</a>
            </>
          )}
          {data.spawnedBy !== undefined && (
            <>
              {" "}
              · subagent of{" "}
              <a
                data-testid="spawned-by"
                href={href({
                  page: "session",
                  id: data.spawnedBy.session,
                  tab: "timeline",
                  ...(data.spawnedBy.seq === undefined ? {} : { n: data.spawnedBy.seq }),
                })}
              >
                {data.spawnedBy.session} (call {data.spawnedBy.callId})
              </a>
            </>
          )}
        </span>
        <span class="muted">{data.cwd}</span>
      </div>
      {live !== undefined && (
        <p class={`live ${live.state}`} data-testid="live-status" data-state={live.state}>
          {live.text}
        </p>
      )}
      <VerifyBanner verify={verify} />
      <nav class="tabs">
        {tab("timeline", "Timeline")}
        {tab("request", "Requests")}
        {tab("headers", "Header changes")}
        {tab("cache", "Cache")}
        {tab("replay", "Replay")}
      </nav>
      {route.tab === "timeline" && <TimelineView data={data} verify={verify} focus={route.n} />}
      {route.tab === "request" && <RequestView id={route.id} n={route.n ?? 1} version={version} />}
      {route.tab === "headers" && <HeaderView id={route.id} version={version} />}
      {route.tab === "cache" && <CacheView id={route.id} version={version} />}
      {route.tab === "replay" && <ReplayView id={route.id} version={version} />}
    </main>
  );
}

function VerifyBanner({ verify: v }: { verify: VerifyPayload | undefined }) {
  if (v === undefined)
    return (
      <p class="verify" data-testid="verify">
        verify: checking…
      </p>
    );
  if (v.clean)
    return (
      <p class="verify ok" data-testid="verify">
        verify: clean — {v.events} events, {v.turns} turns, {v.requests} requests
      </p>
    );
  return (
    <div class="verify bad" data-testid="verify">
      <strong>verify: {v.problems.length} problem(s)</strong>
      <ul>
        {v.problems.map((p, i) => (
          <li key={i} class="mono">
            {p.where}
            {p.line === undefined ? "" : `:${p.line}`}: {p.seq === undefined ? "" : `seq ${p.seq}: `}
            {p.code}: {p.message}
          </li>
        ))}
      </ul>
    </div>
  );
}
