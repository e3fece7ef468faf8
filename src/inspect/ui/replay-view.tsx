// The Replay tab: the session re-run with the current code, every rebuilt request compared with
// the logged one (`keelson replay`'s report: a verdict, then per differing request the segment,
// the logged and rebuilt values, the event that explains it and the cache cost). Fetched on open:
// a replay runs the whole session again.
import { useEffect, useState } from "preact/hooks";
import type { ReplayPayload } from "../types.js";
import { getJson, sessionPath } from "./api.js";

export function ReplayView({ id, version }: { id: string; version: number }) {
  const [replay, setReplay] = useState<ReplayPayload>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    setReplay(undefined);
    getJson<ReplayPayload>(sessionPath(id, "/replay")).then(setReplay, (e: Error) => setError(e.message));
  }, [id, version]);
  if (error !== undefined) return <p class="problem">{error}</p>;
  if (replay === undefined) return <p class="muted">replaying the session with the current code…</p>;
  return (
    <section class="replay">
      <p class={`verify ${replay.identical ? "ok" : "bad"}`} data-testid="replay-verdict">
        {replay.identical ? "replay: identical" : "replay: differs"}
      </p>
      <pre class="mono" data-testid="replay-report">
        {replay.text}
      </pre>
    </section>
  );
}
