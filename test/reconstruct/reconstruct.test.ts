// reconstructRequests on hand-built logs (P13, P14): the exact requests a log's steps sent.
import { describe, expect, test } from "vitest";
import type { EpochHeader } from "../../src/header/index.js";
import type { Message } from "../../src/messages/index.js";
import { ReconstructError, reconstructRequests } from "../../src/reconstruct/index.js";
import type { SessionEvent } from "../../src/session/index.js";
import {
  baseHeader,
  compactedLog,
  LogDriver,
  newSession,
  sessionWithOpen,
  text,
  twoTurnLog,
} from "../support/builders.js";
import { undefinedPaths } from "./support.js";
import { thrown } from "../support/thrown.js";

const READ_SCHEMA = { type: "object", properties: { path: { type: "string" } }, required: ["path"] };
const SYSTEM = "You are a careful assistant.\nAnswer briefly.";

const askNotes: Message = { role: "user", content: [{ type: "text", text: "What is in notes.txt?" }] };
const letMeRead: Message = {
  role: "assistant",
  content: [
    { type: "text", text: "Let me read it." },
    { type: "tool-call", callId: "call_s-test_1", name: "read", arguments: '{"path":"notes.txt"}' },
  ],
};
const buyMilk: Message = {
  role: "tool",
  content: [
    { type: "tool-result", callId: "call_s-test_1", content: [{ type: "text", text: "buy milk" }], isError: false },
  ],
};
const itSays: Message = { role: "assistant", content: [{ type: "text", text: "It says: buy milk." }] };
const thanks: Message = { role: "user", content: [{ type: "text", text: "Thanks!" }] };
const summary: Message = { role: "user", content: [{ type: "text", text: "Summary: notes.txt says buy milk." }] };

const requestWith = (messages: Message[]) => ({
  model: "emulator:rule-based",
  maxTokens: 1024,
  system: SYSTEM,
  tools: [{ name: "read", description: "the read tool", inputSchema: READ_SCHEMA }],
  messages,
});

const reconstructError = (run: () => unknown): ReconstructError => thrown(run, ReconstructError);

describe("reconstructRequests on the two-turn log", () => {
  test("the log sent three requests with exactly these messages", () => {
    const requests = reconstructRequests(twoTurnLog().events).map((r) => r.request);
    expect(requests).toStrictEqual([
      requestWith([askNotes]),
      requestWith([askNotes, letMeRead, buyMilk]),
      requestWith([askNotes, letMeRead, buyMilk, itSays, thanks]),
    ]);
  });

  test("each request names its turn, step and step/start seq", () => {
    const found = reconstructRequests(twoTurnLog().events).map(({ turn, step, stepStartSeq }) => ({
      turn,
      step,
      stepStartSeq,
    }));
    expect(found).toStrictEqual([
      { turn: 1, step: 1, stepStartSeq: 2 },
      { turn: 1, step: 2, stepStartSeq: 8 },
      { turn: 2, step: 1, stepStartSeq: 14 },
    ]);
  });

  test("model, system and tools equal the logged header", () => {
    for (const r of reconstructRequests(twoTurnLog().events)) {
      expect(r.header).toStrictEqual(baseHeader());
      expect(r.request.model).toBe(r.header.config.model);
      expect(r.request.maxTokens).toBe(r.header.config.maxTokens);
      expect(r.request.system).toBe(r.header.system);
      expect(r.request.tools).toStrictEqual(r.header.tools);
      expect(r.request.messages).toStrictEqual(r.history);
    }
  });

  test("an empty log has no requests", () => {
    expect(reconstructRequests([])).toEqual([]);
  });

  test("a stored (JSON round-tripped) log reconstructs to the same requests", () => {
    const events = twoTurnLog().events;
    const stored = JSON.parse(JSON.stringify(events)) as SessionEvent[];
    expect(reconstructRequests(stored).map((r) => r.request)).toStrictEqual(
      reconstructRequests(events).map((r) => r.request),
    );
  });
});

describe("the message prefix", () => {
  const prefix: Message[] = [
    { role: "user", content: [text("<skills>read, grep</skills>")] },
    { role: "assistant", content: [text("Noted.")] },
  ];

  test("every request's messages are the prefix followed by the history", () => {
    const requests = reconstructRequests(twoTurnLog(newSession(), baseHeader({ messagePrefix: prefix })).events);
    expect(requests.map((r) => r.request.messages)).toStrictEqual([
      [...prefix, askNotes],
      [...prefix, askNotes, letMeRead, buyMilk],
      [...prefix, askNotes, letMeRead, buyMilk, itSays, thanks],
    ]);
  });

  test("the history never includes the prefix", () => {
    const session = new LogDriver(newSession(), baseHeader({ messagePrefix: prefix })).turn({
      prompt: "What is in notes.txt?",
      steps: [{ text: "ok" }],
    }).session;
    const [r] = reconstructRequests(session.events);
    expect(r!.history).toStrictEqual([askNotes]);
    expect(r!.header.messagePrefix).toStrictEqual(prefix);
  });
});

describe("absent values", () => {
  test("absent system, tools and prefix are omitted keys, and no value anywhere is undefined", () => {
    const session = new LogDriver(newSession(), {
      config: { model: "m" },
      system: "",
      tools: [],
      messagePrefix: [],
    }).turn({ prompt: "hi", steps: [{ text: "hello" }] }).session;
    const [r] = reconstructRequests(session.events);
    expect(Object.keys(r!.request).sort()).toEqual(["messages", "model"]);
    expect(undefinedPaths(r!.request)).toEqual([]);
    expect(undefinedPaths(r!.header)).toEqual([]);
  });

  test("every config field, including extra provider fields, is carried onto the request", () => {
    const config = { model: "m", temperature: 0.2, stop: ["END"], x_seed: 7, x_meta: { tier: "batch" } };
    const session = new LogDriver(newSession(), { config }).turn({ prompt: "hi", steps: [{ text: "hello" }] }).session;
    expect(reconstructRequests(session.events)[0]!.request).toStrictEqual({
      ...config,
      messages: [{ role: "user", content: [text("hi")] }],
    });
  });
});

describe("the header at dispatch", () => {
  test("a header change logged right after step/start applies to that step's request", () => {
    const changed: EpochHeader = baseHeader({ system: `${SYSTEM}\nCite files.` });
    const session = new LogDriver().turn({
      prompt: "go",
      steps: [
        { text: "one", toolCalls: [{ name: "read" }] },
        { header: changed, text: "two" },
      ],
    }).session;
    const [first, second] = reconstructRequests(session.events);
    expect(session.events[second!.stepStartSeq + 1]!.type).toBe("request/header-delta");
    expect(first!.request.system).toBe(SYSTEM);
    expect(second!.header).toStrictEqual(changed);
    expect(second!.request.system).toBe(`${SYSTEM}\nCite files.`);
  });

  test("a header event logged after the step was dispatched applies from the next step only", () => {
    const s = sessionWithOpen("turn");
    s.append("user/message", { content: [text("go")], source: "user" });
    s.append("step/start", { turn: 1, step: 1 });
    s.append("request/header", { header: { config: { model: "a" } }, reason: "initial" });
    s.append("assistant/message", { turn: 1, step: 1, content: [text("one")] });
    s.append("request/header", { header: { config: { model: "b" } }, reason: "fallback" });
    s.append("step/end", { turn: 1, step: 1 });
    s.append("step/start", { turn: 1, step: 2 });
    s.append("assistant/message", { turn: 1, step: 2, content: [text("two")] });
    s.append("step/end", { turn: 1, step: 2 });
    s.append("turn/end", { turn: 1, reason: { kind: "completed" } });
    expect(reconstructRequests(s.events).map((r) => r.request.model)).toEqual(["a", "b"]);
  });

  test("model output in a step with no header logged is no-header-at-dispatch, naming the output and the step/start", () => {
    const s = sessionWithOpen("turn");
    s.append("user/message", { content: [text("go")], source: "user" });
    s.append("step/start", { turn: 1, step: 1 });
    s.append("assistant/message", { turn: 1, step: 1, content: [text("one")] });
    s.append("step/end", { turn: 1, step: 1 });
    s.append("turn/end", { turn: 1, reason: { kind: "completed" } });
    const error = reconstructError(() => reconstructRequests(s.events));
    expect(error.code).toBe("no-header-at-dispatch");
    expect(error.seq).toBe(3);
    expect(error.message).toContain("step/start at seq 2");
  });

  test("a step that ended before any header was logged sent nothing, and a later step's header does not cover it", () => {
    const s = sessionWithOpen("step");
    s.append("step/end", { turn: 1, step: 1 });
    s.append("step/start", { turn: 1, step: 2 });
    s.append("request/header", { header: { config: { model: "a" } }, reason: "initial" });
    expect(reconstructRequests(s.events).map((r) => [r.step, r.header.config.model])).toEqual([[2, "a"]]);
  });
});

describe("replaces on the surface", () => {
  test("a compaction replace between steps changes later requests' histories but not earlier ones", () => {
    const requests = reconstructRequests(compactedLog().events);
    expect(requests.map((r) => r.history)).toStrictEqual([
      [askNotes],
      [askNotes, letMeRead, buyMilk],
      [summary, thanks],
    ]);
  });

  test("requests before a compaction equal those reconstructed from the log cut before it", () => {
    const events = compactedLog().events;
    const cut = events.findIndex((e) => e.type === "compact/start");
    const before = reconstructRequests(events.slice(0, cut));
    expect(
      reconstructRequests(events)
        .slice(0, before.length)
        .map((r) => r.request),
    ).toStrictEqual(before.map((r) => r.request));
  });

  test("a pruned tool result is replaced in later requests only", () => {
    const s = new LogDriver().turn({
      prompt: "What is in notes.txt?",
      steps: [
        { text: "Let me read it.", toolCalls: [{ name: "read", args: '{"path":"notes.txt"}', result: "buy milk" }] },
        { text: "It says: buy milk." },
      ],
    }).session;
    s.append("turn/start", { turn: 2, trigger: "prune" });
    s.append(
      "tool/result",
      { turn: 1, step: 1, callId: "call_s-test_1", content: [text("[pruned]")], isError: false },
      { op: "replace", start: 2, end: 2 },
    );
    s.append("turn/end", { turn: 2, reason: { kind: "completed" } });
    new LogDriver(s, baseHeader()).turn({ prompt: "Thanks!", steps: [{ text: "You're welcome." }] });
    const pruned: Message = {
      role: "tool",
      content: [{ type: "tool-result", callId: "call_s-test_1", content: [text("[pruned]")], isError: false }],
    };
    expect(reconstructRequests(s.events).map((r) => r.history)).toStrictEqual([
      [askNotes],
      [askNotes, letMeRead, buyMilk],
      [askNotes, letMeRead, pruned, itSays, thanks],
    ]);
  });

  test("historyView gives each history without a copy: shared arrays within an append-only stretch, a new one after a replace", () => {
    const requests = reconstructRequests(compactedLog().events);
    const views = requests.map((r) => r.historyView());
    expect(views.map((v) => v.messages.slice(0, v.length))).toStrictEqual(requests.map((r) => r.history));
    expect(views[1]!.messages).toBe(views[0]!.messages); // the second extends the first
    expect(views[2]!.messages).not.toBe(views[1]!.messages); // the compaction replaced the head
    expect(Object.keys(requests[0]!)).not.toContain("historyView"); // not enumerable: spreads and equality see no method
  });

  test("a replace beyond the surface (in a log that bypassed Session) is bad-replace", () => {
    const events = JSON.parse(JSON.stringify(compactedLog().events)) as {
      surfaceOp?: unknown;
      sourceEventSeqs?: unknown;
    }[];
    const replace = events.find((e) => typeof e.surfaceOp === "object")!;
    replace.surfaceOp = { op: "replace", start: 0, end: 9 };
    const error = reconstructError(() => reconstructRequests(events as SessionEvent[]));
    expect(error.code).toBe("bad-replace");
    expect(error.seq).toBe(events.indexOf(replace));
  });
});
