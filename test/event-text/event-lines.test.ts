// The one table of event text (src/event-text): every event type of the vocabulary has an entry,
// so `keelson show` and the inspector's timeline have no silent fallback, and every entry says
// its events in both forms.
import { describe, expect, test } from "vitest";
import { EVENT_LINES, eventLine } from "../../src/event-text/index.js";
import { type EventType, isEventType, type Session } from "../../src/session/index.js";
import { baseHeader, compactedLog, newSession, text } from "../support/builders.js";

const EVERY_TYPE = [
  "turn/start",
  "turn/end",
  "step/start",
  "step/end",
  "user/message",
  "prompt/blocked",
  "context/message",
  "steering/message",
  "assistant/message",
  "tool/call",
  "tool/result",
  "request/header",
  "request/header-delta",
  "llm/retry",
  "compact/start",
  "compact/summary",
  "compact/end",
  "approval/request",
  "approval/decision",
  "input/request",
  "input/response",
  "mcp/sampling-request",
  "mcp/sampling-response",
] as const satisfies readonly EventType[];
// A type added to the vocabulary and not to this list fails to compile here.
const listsEveryType: [Exclude<EventType, (typeof EVERY_TYPE)[number]>] extends [never] ? true : never = true;

/** One log holding every event type at least once. */
function everyTypeLog(): Session {
  const s = compactedLog(newSession("every-type"));
  const turn = s.lastTurn + 1;
  s.append("turn/start", { turn, trigger: "send" });
  s.append("prompt/blocked", { content: [text("not this")], source: "user", reason: "policy" });
  s.append("user/message", { content: [text("then this")], source: "user" });
  s.append("step/start", { turn, step: 1 });
  s.append("request/header", { header: baseHeader() as never, reason: "resume" });
  s.append("request/header-delta", { messagePrefix: [{ role: "user", content: [text("prefix")] }] } as never);
  s.append("llm/retry", { turn, step: 1, attempt: 1, code: "rate-limit", delayMs: 10 });
  s.append("assistant/message", {
    turn,
    step: 1,
    content: [{ type: "tool-call", callId: "c", name: "read", arguments: "{}" }],
  });
  s.append("tool/call", { turn, step: 1, callId: "c", name: "read", arguments: "{}" });
  // An MCP server's model request during the call, and what the provider answered.
  s.append("mcp/sampling-request", {
    id: "c#sample-1",
    callId: "c",
    server: "fx",
    request: { model: "m", maxTokens: 50, messages: [{ role: "user", content: [text("sum up")] }] },
  });
  s.append("mcp/sampling-response", { id: "c#sample-1", callId: "c", content: [text("summed")], stopReason: "stop" });
  s.append("tool/result", { turn, step: 1, callId: "c", content: [text("ok")], isError: false });
  s.append("steering/message", { turn, content: [text("steer")], source: "user" });
  s.append("context/message", { content: [text("post-tool context")], source: "tools/post-execute" });
  s.append("step/end", { turn, step: 1 });
  s.append("compact/start", { turn, trigger: "auto" });
  s.append("compact/summary", { turn, start: 0, end: 1, regionTokens: 90, summaryTokens: 9 });
  s.append("compact/end", { turn });
  s.append("turn/end", { turn, reason: { kind: "completed" } });
  // A call that needs approval, decided at once by a live decider.
  const next = turn + 1;
  s.append("turn/start", { turn: next, trigger: "send" });
  s.append("step/start", { turn: next, step: 1 });
  s.append("assistant/message", {
    turn: next,
    step: 1,
    content: [{ type: "tool-call", callId: "w", name: "write", arguments: "{}" }],
  });
  s.append("approval/request", { turn: next, step: 1, callId: "w", tool: "write", arguments: "{}", reason: "asks" });
  s.append("approval/decision", { callId: "w", approve: false, by: "ana", note: "no" });
  s.append("input/request", { id: "w", source: "write", schema: { type: "string" }, message: "Why?" });
  s.append("input/response", { id: "w", value: "because" });
  s.append("tool/call", { turn: next, step: 1, callId: "w", name: "write", arguments: "{}" });
  s.append("tool/result", { turn: next, step: 1, callId: "w", content: [text("denied")], isError: true });
  s.append("step/end", { turn: next, step: 1 });
  s.append("turn/end", { turn: next, reason: { kind: "completed" } });
  return s;
}

describe("EVENT_LINES", () => {
  test("has an entry for every event type of the vocabulary, and for nothing else", () => {
    expect(listsEveryType).toBe(true);
    expect(EVERY_TYPE.every((type) => isEventType(type))).toBe(true);
    expect(Object.keys(EVENT_LINES).sort()).toEqual([...EVERY_TYPE].sort());
    for (const type of EVERY_TYPE) expect(typeof EVENT_LINES[type], type).toBe("function");
  });

  test("says every event of a log holding each type as one line in both forms, with its kind and depth", () => {
    const session = everyTypeLog();
    expect(new Set(session.events.map((e) => e.type))).toEqual(new Set(EVERY_TYPE));
    const requestOf = new Map<number, number>();
    for (const event of session.events) {
      for (const view of [{ form: "full" }, { form: "row", requestOf }] as const) {
        const line = eventLine(event, view);
        expect(line.text, `${event.type} (${view.form})`).not.toBe("");
        expect(line.text.startsWith(event.type), `${event.type} says more than its type`).toBe(false);
        expect([0, 1, 2]).toContain(line.depth);
        if (view.form === "row") expect(line.detail, "row form has no detail lines").toBeUndefined();
      }
    }
  });
});
