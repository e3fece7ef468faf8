// Requests as `keelson requests` prints them, for the request view: the list, one request with
// its text (byte for byte the CLI's `--step N` output), the header and prefix it was composed
// from (and the loop instance whose snapshot holds that prefix), the wire body per provider,
// and where the Anthropic adapter's cache breakpoints fall.
import type { Message } from "../messages/index.js";
import type { ReconstructedRequest } from "../reconstruct/index.js";
import type { AnySessionEvent, Session } from "../session/index.js";
import { eachRequest } from "./request-walk.js";
import type { Breakpoint, RequestListItem, RequestPayload } from "./types.js";
import { INSPECTED_WIRES, wireBody } from "./wire-payload.js";

/** What `keelson requests` prints for one request (the JSON it renders). */
export function cliRequestJson(r: ReconstructedRequest): unknown {
  return { turn: r.turn, step: r.step, stepStartSeq: r.stepStartSeq, request: r.request };
}

/** Exactly the stdout of `keelson requests <id>`, without its final newline. */
export function cliRequestsText(session: Session): string {
  return [...cliRequestsChunks(session)].join("");
}

/**
 * `cliRequestsText` in pieces, one request at a time (`JSON.stringify(list, null, 2)`'s bytes:
 * each element is its own indented JSON shifted by two spaces — JSON strings hold no raw
 * newline), so a server can stream a log whose whole list would not fit in memory. Throws what
 * `reconstructRequests` throws before yielding anything.
 */
export function* cliRequestsChunks(session: Session): Generator<string> {
  let first = true;
  for (const r of eachRequest(session.events)) {
    yield `${first ? "[\n  " : ",\n  "}${JSON.stringify(cliRequestJson(r), null, 2).replaceAll("\n", "\n  ")}`;
    first = false;
  }
  yield first ? "[]" : "\n]";
}

/** The request list, each request materialized only while it is counted (request-walk.ts). */
export function requestList(session: Session): RequestListItem[] {
  const out: RequestListItem[] = [];
  for (const r of eachRequest(session.events))
    out.push({
      index: out.length + 1,
      turn: r.turn,
      step: r.step,
      stepStartSeq: r.stepStartSeq,
      messages: r.request.messages.length,
    });
  return out;
}

export function requestPayload(
  session: Session,
  requests: readonly ReconstructedRequest[],
  index: number,
): RequestPayload {
  const r = requests[index - 1]!;
  const wire = Object.fromEntries(
    INSPECTED_WIRES.map((w) => [w, wireBody(r, session.id, w)]),
  ) as RequestPayload["wire"];
  const instance = instanceOf(session.events as readonly AnySessionEvent[], r);
  return {
    index,
    turn: r.turn,
    step: r.step,
    stepStartSeq: r.stepStartSeq,
    messages: r.request.messages.length,
    text: JSON.stringify(cliRequestJson(r), null, 2),
    header: r.header,
    prefix: r.header.messagePrefix ?? [],
    ...(instance === undefined ? {} : { instance }),
    history: r.history,
    wire,
    breakpoints: breakpointsOf(JSON.parse(wire.anthropic) as AnthropicBody, r.request.messages),
  };
}

/** The `initial` / `resume` snapshot in force when the step dispatched: it composed the prefix. */
function instanceOf(
  events: readonly AnySessionEvent[],
  r: ReconstructedRequest,
): RequestPayload["instance"] | undefined {
  let end = r.stepStartSeq;
  while (end < events.length) {
    const e = events[end]!;
    if (e.type === "step/end" || e.type === "assistant/message") break;
    end++;
  }
  let found: RequestPayload["instance"] | undefined;
  let number = 0;
  for (let i = 0; i < end && i < events.length; i++) {
    const e = events[i]!;
    if (e.type === "request/header" && e.data.reason !== "fallback")
      found = { seq: e.seq, reason: e.data.reason, number: ++number };
  }
  return found;
}

interface AnthropicBlock {
  readonly type: string;
  readonly tool_use_id?: string;
  readonly cache_control?: unknown;
}
interface AnthropicBody {
  readonly tools?: readonly { readonly cache_control?: unknown }[];
  readonly system?: readonly { readonly cache_control?: unknown }[];
  readonly messages: readonly { readonly role: string; readonly content: readonly AnthropicBlock[] }[];
}

/**
 * The `cache_control` marks of the Anthropic body, each with the Keelson message it ends. The
 * adapter merges consecutive tool results into one user turn and skips messages with no block
 * it can send; the walk follows the body: a tool message is found by its call id, any other
 * message takes the next turn of its role.
 */
export function breakpointsOf(body: AnthropicBody, messages: readonly Message[]): Breakpoint[] {
  const out: Breakpoint[] = [];
  if (body.tools?.some((t) => t.cache_control !== undefined)) out.push({ segment: "tools" });
  if (body.system?.some((b) => b.cache_control !== undefined)) out.push({ segment: "system" });
  const owner = new Map<string, number>(); // "turn.block" → Keelson message index
  let turn = -1;
  messages.forEach((m, i) => {
    if (m.role === "tool") {
      const callId = m.content[0].callId;
      for (let t = Math.max(turn, 0); t < body.messages.length; t++) {
        const block = body.messages[t]!.content.findIndex((b) => b.tool_use_id === callId);
        if (block >= 0) {
          turn = t;
          owner.set(`${t}.${block}`, i);
          return;
        }
      }
      return;
    }
    const next = body.messages[turn + 1];
    if (next === undefined || next.role !== m.role || next.content.some((b) => b.type === "tool_result")) return;
    turn++;
    for (let b = 0; b < next.content.length; b++) owner.set(`${turn}.${b}`, i);
  });
  body.messages.forEach((msg, t) => {
    msg.content.forEach((block, b) => {
      if (block.cache_control === undefined) return;
      const message = owner.get(`${t}.${b}`);
      out.push({ segment: "message", turn: t, block: b, ...(message === undefined ? {} : { message }) });
    });
  });
  return out;
}
