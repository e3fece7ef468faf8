// The sessions list: id, created, updated, cwd, turns, last prompt, the tree (fork parent → forks,
// subagent parent ⇢ the sessions its calls started),
// filtered by id or prompt as the user types.
import { useEffect, useMemo, useState } from "preact/hooks";
import type { SessionsPayload } from "../types.js";
import { getJson } from "./api.js";
import { href } from "./route.js";

type Row = SessionsPayload["sessions"][number];

export function SessionsView() {
  const [data, setData] = useState<SessionsPayload>();
  const [error, setError] = useState<string>();
  const [query, setQuery] = useState("");
  useEffect(() => {
    getJson<SessionsPayload>("/api/sessions").then(setData, (e: Error) => setError(e.message));
  }, []);
  const rows = useMemo(() => {
    const q = query.trim().toLowerCase();
    const all = data?.sessions ?? [];
    if (q === "") return all;
    return all.filter((r) =>
      r.kind === "session" ? r.id.includes(q) || (r.lastPrompt ?? "").toLowerCase().includes(q) : r.name.includes(q),
    );
  }, [data, query]);
  if (error !== undefined) return <p class="problem">{error}</p>;
  if (data === undefined) return <p class="muted">loading…</p>;
  return (
    <main class="page">
      <div class="toolbar">
        <h1>Sessions</h1>
        <span class="muted">{data.source}</span>
        <input
          type="search"
          placeholder="search id or prompt"
          value={query}
          data-testid="session-search"
          onInput={(e) => setQuery((e.currentTarget as HTMLInputElement).value)}
        />
      </div>
      <table class="sessions" data-testid="sessions">
        <thead>
          <tr>
            <th>id</th>
            <th>created</th>
            <th>updated</th>
            <th>turns</th>
            <th>cwd</th>
            <th>last prompt</th>
            <th>tree</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <SessionRow key={r.kind === "session" ? r.id : r.name} row={r} />
          ))}
        </tbody>
      </table>
      {rows.length === 0 && <p class="muted">no sessions{query ? " match" : ""}</p>}
    </main>
  );
}

function SessionRow({ row }: { row: Row }) {
  if (row.kind === "unreadable")
    return (
      <tr class="unreadable">
        <td>{row.name}</td>
        <td colSpan={6} class="problem">
          unreadable{row.code ? ` (${row.code})` : ""}: {row.problem}
        </td>
      </tr>
    );
  const link = (id: string) => <a href={href({ page: "session", id, tab: "timeline" })}>{id.slice(0, 8)}</a>;
  return (
    <tr data-session={row.id}>
      <td class="mono">
        <a href={href({ page: "session", id: row.id, tab: "timeline" })}>{row.id}</a>
        {row.open && <span class="badge warn">open turn</span>}
        {row.pendingApprovals !== undefined && (
          <span class="badge warn">awaiting approval ({row.pendingApprovals})</span>
        )}
      </td>
      <td>{new Date(row.createdAt).toISOString().replace("T", " ").slice(0, 19)}</td>
      <td>{new Date(row.updatedAt).toISOString().replace("T", " ").slice(0, 19)}</td>
      <td class="num">{row.turns}</td>
      <td class="mono">{row.cwd ?? "-"}</td>
      <td class="prompt">{row.lastPrompt ?? ""}</td>
      <td class="mono">
        {row.parentSession !== undefined && <span>← {link(row.parentSession)} </span>}
        {(row.children ?? []).map((c) => (
          <span key={c}>→ {link(c)} </span>
        ))}
        {row.spawnedBy !== undefined && (
          <span data-testid="subagent-of">
            subagent of{" "}
            <a href={href({ page: "session", id: row.spawnedBy.session, tab: "timeline" })}>
              {row.spawnedBy.session.slice(0, 8)}
            </a>{" "}
          </span>
        )}
        {(row.subagents ?? []).map((c) => (
          <span key={c} data-testid="subagent">
            ⇢ <a href={href({ page: "session", id: c, tab: "timeline" })}>{c.slice(c.lastIndexOf(".") + 1)}</a>{" "}
          </span>
        ))}
      </td>
    </tr>
  );
}
