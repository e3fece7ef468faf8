// EVENT_LINES: the one table that says every logged event in words, for `keelson show` (the full
// form) and the inspector's timeline (the row form). It is a record over `EventType`, so an event
// type added to the vocabulary does not compile until it says how it reads.
//
// Each entry builds its line with the keys in the order the inspector's JSON has always had them
// (the timeline row is `{ seq, ...line }`), so its responses stay byte for byte what they were.
import { headerDeltaOf, snapshotHeaderOf } from "../header/index.js";
import { contentText, type Message, messageText, previewText } from "../messages/index.js";
import { compactSummaryOf, type EventType, type SessionEvent } from "../session/index.js";
import type { EventLine, EventLineOf, EventView } from "./types.js";

/** Message text as the form shows it: whole, or a one-line preview. */
const said = (content: Parameters<typeof contentText>[0], view: EventView): string =>
  view.form === "full" ? contentText(content) : previewText(contentText(content), 160);

/** The session prefix under a snapshot's or a delta's line (full form). */
function prefixLines(prefix: readonly Message[]): string[] {
  if (prefix.length === 0) return ["session prefix: (empty)"];
  return [
    `session prefix — request-only (not in history), ${prefix.length} message(s):`,
    ...prefix.map((m, i) => `  [${i}] ${m.role}: ${previewText(messageText(m), 160)}`),
  ];
}

export const EVENT_LINES: { readonly [T in EventType]: EventLineOf<T> } = {
  "turn/start": ({ data }) => ({
    kind: "turn",
    depth: 0,
    turn: data.turn,
    text: `turn ${data.turn} (${data.trigger})`,
  }),
  "turn/end": ({ data }) => {
    const r = data.reason;
    const why =
      r.kind === "error" ? `: ${r.message}` : r.kind === "aborted" || r.kind === "rejected" ? `: ${r.reason}` : "";
    return {
      kind: "turn-end",
      depth: 0,
      turn: data.turn,
      text: `turn ${data.turn} ends ${r.kind}${why}`,
      // A turn that pauses for a person did not fail.
      ...(r.kind === "completed" || r.kind === "awaiting-approval" || r.kind === "awaiting-input"
        ? {}
        : { error: true }),
    };
  },
  "step/start": ({ seq, data }, view) => {
    const head = `step ${data.turn}.${data.step}`;
    if (view.form === "full") return { kind: "step", depth: 1, turn: data.turn, step: data.step, text: head };
    const request = view.requestOf.get(seq);
    return {
      kind: "step",
      depth: 1,
      turn: data.turn,
      step: data.step,
      text: `${head}${request === undefined ? " (sent no request)" : ` — request ${request}`}`,
      ...(request === undefined ? {} : { request }),
    };
  },
  "step/end": ({ data }) => ({
    kind: "step-end",
    depth: 1,
    turn: data.turn,
    step: data.step,
    text: `step ${data.turn}.${data.step} ends${data.dispatched === false ? " (not dispatched)" : ""}`,
  }),
  // The transcript has always said `user:` whatever the source; the timeline names a source other than the user.
  "user/message": ({ data }, view) => ({
    kind: "user",
    depth: 2,
    text: `user${view.form === "row" && data.source !== "user" ? ` (${data.source})` : ""}: ${said(data.content, view)}`,
  }),
  "context/message": ({ data }, view) => ({
    kind: "context",
    depth: 2,
    text: `context (${data.source}): ${said(data.content, view)}`,
  }),
  "steering/message": ({ data }, view) => ({
    kind: "steering",
    depth: 2,
    text: `steering (${data.source}): ${said(data.content, view)}`,
  }),
  "prompt/blocked": ({ data }, view) => ({
    kind: "blocked",
    depth: 2,
    error: true,
    text: `prompt blocked (${data.reason}): ${said(data.content, view)}`,
  }),
  "assistant/message": ({ data }, view) => {
    const u = data.usage;
    const [read, write] = view.form === "full" ? ["cache-read", "cache-write"] : ["read", "write"];
    const usage =
      u === undefined
        ? ""
        : `  [in ${u.inputTokens} · ${read} ${u.cacheReadTokens} · ${write} ${u.cacheWriteTokens} · out ${u.outputTokens}]`;
    return {
      kind: "assistant",
      depth: 2,
      turn: data.turn,
      step: data.step,
      text: `assistant: ${said(data.content, view)}${usage}`,
    };
  },
  "tool/call": ({ data }, view) => ({
    kind: "tool-call",
    depth: 2,
    turn: data.turn,
    step: data.step,
    text: `tool call ${data.name}(${previewText(data.arguments, view.form === "full" ? 200 : 100)}) [${data.callId}]`,
  }),
  "tool/result": ({ data }, view) => {
    const failed = data.isError ? ` error${data.error ? ` (${data.error})` : ""}` : "";
    const pruned =
      view.form === "full" || data.meta?.prunedFrom === undefined
        ? ""
        : ` (pruned from #${String(data.meta.prunedFrom)})`;
    return {
      kind: "tool-result",
      depth: 2,
      turn: data.turn,
      step: data.step,
      text: `tool result [${data.callId}]${failed}${pruned}: ${said(data.content, view)}`,
      ...(data.isError ? { error: true } : {}),
    };
  },
  "approval/request": ({ data }, view) => ({
    kind: "approval-request",
    depth: 2,
    turn: data.turn,
    step: data.step,
    text: `approval requested for ${data.tool}(${previewText(data.arguments, view.form === "full" ? 200 : 100)}) [${data.callId}]: ${view.form === "full" ? data.reason : previewText(data.reason, 100)}`,
  }),
  "approval/decision": ({ data }, view) => {
    const cut = (text: string, max: number): string => (view.form === "full" ? text : previewText(text, max));
    const by = data.by === undefined ? "" : ` by ${cut(data.by, 60)}`;
    const edited =
      data.arguments === undefined
        ? ""
        : ` with arguments ${previewText(data.arguments, view.form === "full" ? 200 : 100)}`;
    const note = data.note === undefined ? "" : `: ${cut(data.note, 100)}`;
    return {
      kind: "approval-decision",
      depth: 2,
      text: `${data.approve ? "approved" : "denied"}${by} [${data.callId}]${edited}${note}`,
      ...(data.approve ? {} : { error: true }),
    };
  },
  "input/request": ({ data }, view) => ({
    kind: "input-request",
    depth: 2,
    text: `question from ${data.source} [${data.id}]: ${view.form === "full" ? data.message : previewText(data.message, 100)}`,
  }),
  "input/response": ({ data }, view) => ({
    kind: "input-response",
    depth: 2,
    text: `answered${data.by === undefined ? "" : ` by ${data.by}`} [${data.id}]: ${previewText(JSON.stringify(data.value), view.form === "full" ? 200 : 100)}`,
  }),
  "mcp/sampling-request": ({ data }, view) => {
    const r = data.request;
    const messages = r.messages;
    const last = messages.at(-1);
    const asked = last === undefined ? "" : `: ${previewText(messageText(last), view.form === "full" ? 500 : 100)}`;
    return {
      kind: "sampling-request",
      depth: 2,
      text: `sampling request from MCP server ${data.server} [${data.id}]: model ${r.model}, max ${r.maxTokens} tokens, ${messages.length} message(s)${asked}`,
    };
  },
  "mcp/sampling-response": ({ data }, view) => {
    if (data.error !== undefined)
      return {
        kind: "sampling-response",
        depth: 2,
        text: `sampling failed [${data.id}]: ${data.error.code}: ${previewText(data.error.message, 200)}`,
        error: true,
      };
    const usage = data.usage === undefined ? "" : ` (${data.usage.inputTokens} in, ${data.usage.outputTokens} out)`;
    return {
      kind: "sampling-response",
      depth: 2,
      text: `sampling answer [${data.id}]${usage}: ${said(data.content ?? [], view)}`,
    };
  },
  "request/header": (event, view) => {
    const header = snapshotHeaderOf(event);
    const head = `header snapshot (${event.data.reason})`;
    if (view.form === "row")
      return {
        kind: "header",
        depth: 2,
        text: `${head}: model ${header.config.model} · ${header.tools?.length ?? 0} tools · prefix ${header.messagePrefix?.length ?? 0} message(s)`,
      };
    const config = Object.entries(header.config)
      .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
      .join(" ");
    const tools = (header.tools ?? []).map((t) => t.name);
    return {
      kind: "header",
      depth: 2,
      text: `${head}: ${config}`,
      detail: [
        `system: ${header.system === undefined ? "(none)" : previewText(header.system, 100)}`,
        `tools: ${tools.length === 0 ? "(none)" : tools.join(", ")}`,
        ...prefixLines(header.messagePrefix ?? []),
      ],
    };
  },
  "request/header-delta": (event, view) => {
    const delta = headerDeltaOf(event);
    const arms = Object.keys(delta);
    const text = `header delta: ${arms.length === 0 ? "(empty)" : arms.join(", ")}`;
    if (view.form === "row" || delta.messagePrefix === undefined) return { kind: "header-delta", depth: 2, text };
    return { kind: "header-delta", depth: 2, text, detail: prefixLines(delta.messagePrefix) };
  },
  "llm/retry": ({ data }) => ({
    kind: "retry",
    depth: 2,
    turn: data.turn,
    step: data.step,
    error: true,
    text: `retry ${data.turn}.${data.step} attempt ${data.attempt}: ${data.code}, after ${data.delayMs} ms`,
  }),
  "compact/start": ({ data }) => ({
    kind: "compact-start",
    depth: 1,
    text: `compaction starts (${data.trigger}${data.estimatedTokens === undefined ? "" : `, ≈${data.estimatedTokens} tokens`})`,
  }),
  // The transcript shows the payload as logged; the timeline says what was replaced by what.
  "compact/summary": (event, view) => {
    if (view.form === "full")
      return {
        kind: "compact-summary",
        depth: 2,
        text: `compaction summary: ${previewText(JSON.stringify(event.data), 200)}`,
      };
    const s = compactSummaryOf(event);
    return {
      kind: "compact-summary",
      depth: 2,
      text: `compaction summary: history messages ${String(s.start)}..${String(s.end)} (${String(s.regionTokens)} tokens) → a ${String(s.summaryTokens)}-token summary`,
    };
  },
  "compact/end": ({ data }) => ({
    kind: "compact-end",
    depth: 1,
    text: `compaction ends${data.error === undefined ? "" : ` with error: ${data.error}`}`,
    ...(data.error === undefined ? {} : { error: true }),
  }),
};

/** `event` in words: its entry of `EVENT_LINES`. */
export function eventLine<T extends EventType>(event: SessionEvent<T>, view: EventView): EventLine {
  const say: EventLineOf<T> = EVENT_LINES[event.type];
  return say(event, view);
}
