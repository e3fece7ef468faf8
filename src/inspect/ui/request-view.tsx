// One request per step, as reconstructed from the log: its structure (tools, system, the session
// prefix marked request-only with the loop instance that composed it, history) with the
// Anthropic adapter's cache breakpoints drawn where they fall; the exact `keelson requests` JSON;
// and the wire body per provider, copyable byte for byte.
import { useEffect, useState } from "preact/hooks";
import type { Message } from "../../messages/index.js";
import type { RequestListItem, RequestPayload } from "../types.js";
import { getJson, sessionPath } from "./api.js";
import { href } from "./route.js";

type Mode = "structure" | "json" | "anthropic" | "openai" | "deepseek" | "gemini";

export function RequestView({ id, n, version }: { id: string; n: number; version: number }) {
  const [list, setList] = useState<RequestListItem[]>();
  const [request, setRequest] = useState<RequestPayload>();
  const [error, setError] = useState<string>();
  const [mode, setMode] = useState<Mode>("structure");
  useEffect(() => {
    getJson<RequestListItem[]>(sessionPath(id, "/requests")).then(setList, (e: Error) => setError(e.message));
  }, [id, version]);
  useEffect(() => {
    setRequest(undefined);
    getJson<RequestPayload>(sessionPath(id, `/requests/${n}`)).then(setRequest, (e: Error) => setError(e.message));
  }, [id, n, version]);
  return (
    <div class="split requests">
      <nav class="request-list" data-testid="request-list">
        {(list ?? []).map((r) => (
          <a
            key={r.index}
            class={r.index === n ? "active" : ""}
            href={href({ page: "session", id, tab: "request", n: r.index })}
          >
            {r.index}. step {r.turn}.{r.step} <span class="muted">{r.messages} msgs</span>
          </a>
        ))}
        {list?.length === 0 && <p class="muted">this session sent no request</p>}
      </nav>
      <section class="request" data-testid="request">
        {error !== undefined && <p class="problem">{error}</p>}
        {request !== undefined && (
          <>
            <div class="toolbar">
              <h2>
                Request {request.index} · step {request.turn}.{request.step}
              </h2>
              {(["structure", "json", "anthropic", "openai", "deepseek", "gemini"] as const).map((m) => (
                <button
                  type="button"
                  key={m}
                  class={mode === m ? "active" : ""}
                  data-testid={`mode-${m}`}
                  onClick={() => setMode(m)}
                >
                  {m === "json" ? "keelson requests" : m === "structure" ? "structure" : `wire: ${m}`}
                </button>
              ))}
            </div>
            {mode === "structure" && <Structure request={request} />}
            {mode === "json" && <Copyable text={request.text} testId="request-text" />}
            {(mode === "anthropic" || mode === "openai" || mode === "deepseek" || mode === "gemini") && (
              <Copyable
                text={request.wire[mode]}
                shown={JSON.stringify(JSON.parse(request.wire[mode]), null, 2)}
                testId={`wire-${mode}`}
              />
            )}
          </>
        )}
      </section>
    </div>
  );
}

function Copyable({ text, shown, testId }: { text: string; shown?: string; testId: string }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
    } catch {
      const area = document.createElement("textarea");
      area.value = text;
      document.body.append(area);
      area.select();
      document.execCommand("copy");
      area.remove();
    }
    setCopied(true);
  };
  return (
    <div class="copyable">
      <button type="button" class="copy" data-testid="copy" onClick={copy}>
        {copied ? "copied" : "copy exact bytes"}
      </button>
      <pre data-testid={testId}>{shown ?? text}</pre>
    </div>
  );
}

function Breakpoint({ label }: { label: string }) {
  return (
    <div class="breakpoint" data-testid="breakpoint">
      ◆ cache breakpoint <span class="muted">({label})</span>
    </div>
  );
}

function Structure({ request }: { request: RequestPayload }) {
  const h = request.header;
  const marks = new Set(request.breakpoints.filter((b) => b.segment === "message").map((b) => b.message));
  const toolsMark = request.breakpoints.some((b) => b.segment === "tools");
  const systemMark = request.breakpoints.some((b) => b.segment === "system");
  const p = request.prefix.length;
  const config = Object.entries(h.config)
    .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
    .join(" ");
  return (
    <div class="structure">
      <p class="muted mono">{config}</p>
      <section>
        <h3>tools ({h.tools?.length ?? 0})</h3>
        <p class="mono">{(h.tools ?? []).map((t) => t.name).join(", ") || "(none)"}</p>
        {toolsMark && <Breakpoint label="end of tools" />}
      </section>
      <section>
        <h3>system</h3>
        <pre>{h.system ?? "(none)"}</pre>
        {systemMark && <Breakpoint label="end of tools + system" />}
      </section>
      <section class="prefix" data-testid="prefix">
        <h3>
          session prefix <span class="badge request-only">request-only · not in history</span>
        </h3>
        <p class="muted" data-testid="prefix-instance">
          {request.instance === undefined
            ? "no header snapshot anchors this request"
            : `composed by loop instance ${request.instance.number} — logged on its ${request.instance.reason} snapshot #${request.instance.seq}`}
        </p>
        {p === 0 && <p class="muted">(empty: no prefix contributors)</p>}
        {request.prefix.map((m, i) => (
          <MessageBox key={i} message={m} index={i} mark={marks.has(i)} label="end of the session prefix" />
        ))}
      </section>
      <section data-testid="history">
        <h3>history ({request.history.length} messages)</h3>
        {request.history.map((m, i) => (
          <MessageBox
            key={i}
            message={m}
            index={p + i}
            mark={marks.has(p + i)}
            label={p + i === request.messages - 1 ? "last block" : "previous request's end"}
          />
        ))}
      </section>
    </div>
  );
}

function MessageBox({
  message,
  index,
  mark,
  label,
}: {
  message: Message;
  index: number;
  mark: boolean;
  label: string;
}) {
  return (
    <>
      <div class={`message role-${message.role}`} data-index={index}>
        <span class="role">
          [{index}] {message.role}
        </span>
        <pre>{messageText(message)}</pre>
      </div>
      {mark && <Breakpoint label={label} />}
    </>
  );
}

function messageText(message: Message): string {
  return message.content
    .map((part) => {
      switch (part.type) {
        case "text":
          return part.text;
        case "tool-call":
          return `→ ${part.name}(${part.arguments}) [${part.callId}]`;
        case "tool-result":
          return `← [${part.callId}]${part.isError ? " error" : ""} ${part.content.map((c) => (c.type === "text" ? c.text : `[image ${c.mediaType}]`)).join("\n")}`;
        case "reasoning":
          return `[reasoning] ${part.text}`;
        case "image":
          return `[image ${part.mediaType}]`;
      }
      return "";
    })
    .join("\n");
}
