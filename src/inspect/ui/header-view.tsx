// Header changes: every snapshot (initial / resume / fallback) and delta of the log, and for the
// selected one the header before and after it side by side — system as a line diff, tools by
// name, config, and the session prefix.
import { useEffect, useState } from "preact/hooks";
import type { EpochHeader } from "../../header/index.js";
import type { HeaderChange } from "../types.js";
import { getJson, sessionPath } from "./api.js";
import { lineDiff } from "./line-diff.js";

export function HeaderView({ id, version }: { id: string; version: number }) {
  const [changes, setChanges] = useState<HeaderChange[]>();
  const [selected, setSelected] = useState<number>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    getJson<HeaderChange[]>(sessionPath(id, "/headers")).then(
      (c) => {
        setChanges(c);
        // open on the first resume (where drift shows), else the latest record
        setSelected((s) => s ?? (c.find((x) => x.reason === "resume") ?? c.at(-1))?.seq);
      },
      (e: Error) => setError(e.message),
    );
  }, [id, version]);
  if (error !== undefined) return <p class="problem">{error}</p>;
  if (changes === undefined) return <p class="muted">loading…</p>;
  const change = changes.find((c) => c.seq === selected);
  return (
    <div class="split headers">
      <nav class="request-list" data-testid="header-list">
        {changes.map((c) => (
          <button
            type="button"
            key={c.seq}
            class={c.seq === selected ? "active" : ""}
            data-seq={c.seq}
            onClick={() => setSelected(c.seq)}
          >
            #{c.seq} {c.kind}
            {c.reason ? ` (${c.reason})` : ""} <span class="muted">{c.changed.join(", ") || "no change"}</span>
          </button>
        ))}
        {changes.length === 0 && <p class="muted">no header was logged</p>}
      </nav>
      <section class="header-diff" data-testid="header-diff">
        {change !== undefined && <Diff change={change} />}
      </section>
    </div>
  );
}

function Diff({ change }: { change: HeaderChange }) {
  const before: Partial<EpochHeader> = change.before ?? {};
  const after = change.after;
  return (
    <>
      <h2 data-testid="header-reason">
        #{change.seq} {change.kind}
        {change.reason ? ` — reason: ${change.reason}` : ""}
      </h2>
      <p class="muted">
        changed: {change.changed.join(", ") || "nothing (a resume snapshot is logged even when identical)"}
        {change.before === undefined ? " · first header of the log" : ""}
      </p>
      <h3>system {change.changed.includes("system") ? <span class="badge warn">changed</span> : null}</h3>
      <table class="diff">
        <tbody>
          {lineDiff(before.system ?? "", after.system ?? "").map((l, i) => (
            <tr key={i} class={l.same ? "" : "changed"}>
              <td class={l.left !== undefined && !l.same ? "del" : ""}>{l.left ?? ""}</td>
              <td class={l.right !== undefined && !l.same ? "add" : ""}>{l.right ?? ""}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <h3>tools {change.changed.includes("tools") ? <span class="badge warn">changed</span> : null}</h3>
      <ToolsDiff before={before.tools ?? []} after={after.tools ?? []} />
      <h3>config {change.changed.includes("config") ? <span class="badge warn">changed</span> : null}</h3>
      <SideBySide
        left={before.config === undefined ? "" : JSON.stringify(before.config, null, 2)}
        right={JSON.stringify(after.config, null, 2)}
      />
      <h3>
        session prefix <span class="badge request-only">request-only</span>{" "}
        {change.changed.includes("messagePrefix") ? <span class="badge warn">changed</span> : null}
      </h3>
      <SideBySide left={prefixText(before.messagePrefix)} right={prefixText(after.messagePrefix)} />
    </>
  );
}

function prefixText(prefix: EpochHeader["messagePrefix"]): string {
  if (prefix === undefined || prefix.length === 0) return "(none)";
  return prefix
    .map((m, i) => `[${i}] ${m.role}: ${m.content.map((c) => ("text" in c ? c.text : c.type)).join(" ")}`)
    .join("\n");
}

function SideBySide({ left, right }: { left: string; right: string }) {
  return (
    <table class="diff">
      <tbody>
        {lineDiff(left, right).map((l, i) => (
          <tr key={i} class={l.same ? "" : "changed"}>
            <td class={l.left !== undefined && !l.same ? "del" : ""}>{l.left ?? ""}</td>
            <td class={l.right !== undefined && !l.same ? "add" : ""}>{l.right ?? ""}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function ToolsDiff({
  before,
  after,
}: {
  before: NonNullable<EpochHeader["tools"]>;
  after: NonNullable<EpochHeader["tools"]>;
}) {
  const names = [...new Set([...before.map((t) => t.name), ...after.map((t) => t.name)])];
  return (
    <table class="diff tools" data-testid="tools-diff">
      <tbody>
        {names.map((name) => {
          const a = before.find((t) => t.name === name);
          const b = after.find((t) => t.name === name);
          const status =
            a === undefined
              ? "added"
              : b === undefined
                ? "removed"
                : JSON.stringify(a) === JSON.stringify(b)
                  ? "same"
                  : "changed";
          return (
            <tr key={name} class={status === "same" ? "" : "changed"}>
              <td class={status === "removed" || status === "changed" ? "del" : ""}>{a === undefined ? "" : name}</td>
              <td class={status === "added" || status === "changed" ? "add" : ""}>
                {b === undefined ? "" : name} <span class="muted">{status}</span>
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
