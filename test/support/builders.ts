// Builders for tests: a deterministic clock, content helpers, and a driver that writes turns
// into a Session the way the loop will (turn/start, user message, steps with a recorded header,
// assistant message, tool calls and results, step/end, turn/end).
import type { EpochHeader } from "../../src/header/index.js";
import type { ToolSchema } from "../../src/llm/core.js";
import { HeaderWriter } from "../../src/header/index.js";
import type { TextBlock, ToolCallBlock } from "../../src/messages/index.js";
import { type EventDataMap, Session, type SessionOptions, type TurnEndReason } from "../../src/session/index.js";

/** A clock that returns 1_700_000_000_000, then +1 ms per call. */
export function fixedClock(start = 1_700_000_000_000): () => number {
  let t = start;
  return () => t++;
}

export const text = (t: string): TextBlock => ({ type: "text", text: t });

/** A tool-call content block as the model produces it. */
export const toolCall = (callId: string, name = "read", args = "{}"): ToolCallBlock => ({
  type: "tool-call",
  callId,
  name,
  arguments: args,
});

export const tool = (name: string): ToolSchema => ({
  name,
  description: `the ${name} tool`,
  inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
});

export const baseHeader = (over: Partial<EpochHeader> = {}): EpochHeader => ({
  config: { model: "emulator:rule-based", maxTokens: 1024 },
  system: "You are a careful assistant.\nAnswer briefly.",
  tools: [tool("read")],
  ...over,
});

export function newSession(id = "s-test", options: SessionOptions = {}): Session {
  return Session.create({ id, createdAt: 1_700_000_000_000, cwd: "/work" }, { clock: fixedClock(), ...options });
}

/** A new session with turn 1 open, and with `"step"` also step 1 of it (no header recorded). */
export function sessionWithOpen(level: "turn" | "step", options: SessionOptions = {}): Session {
  const s = newSession("s-test", options);
  s.append("turn/start", { turn: 1, trigger: "send" });
  if (level === "step") s.append("step/start", { turn: 1, step: 1 });
  return s;
}

export interface ToolCallSpec {
  readonly name: string;
  readonly args?: string;
  readonly result?: string;
  readonly isError?: boolean;
}

export interface StepSpec {
  /** Header for this step's request; defaults to the previous step's (or `baseHeader()`). */
  readonly header?: EpochHeader;
  readonly text?: string;
  readonly toolCalls?: readonly ToolCallSpec[];
  /** Appended before the boundary (joins this step's request), like a pre-step inject. */
  readonly injectBefore?: string;
}

export interface TurnSpec {
  readonly prompt: string;
  readonly steps: readonly StepSpec[];
  readonly end?: TurnEndReason;
}

/** Drives turns into one session as one loop instance (one HeaderWriter). */
export class LogDriver {
  readonly session: Session;
  readonly writer: HeaderWriter;
  #header: EpochHeader;
  #callCounter = 0;

  constructor(session: Session = newSession(), header: EpochHeader = baseHeader()) {
    this.session = session;
    this.writer = new HeaderWriter(session);
    this.#header = header;
    // Continue numbering after the calls already in the log, so a second driver on the same
    // session (e.g. one that crashes a turn onto `buildLog`'s output) never reuses a call id.
    for (const e of session.events) {
      if (e.type === "assistant/message")
        this.#callCounter += (e.data as EventDataMap["assistant/message"]).content.filter(
          (b) => b.type === "tool-call",
        ).length;
    }
  }

  turn(spec: TurnSpec): this {
    const s = this.session;
    const turn = s.lastTurn + 1;
    s.append("turn/start", { turn, trigger: "send" });
    s.append("user/message", { content: [text(spec.prompt)], source: "user" });
    spec.steps.forEach((step, i) => {
      this.step(turn, i + 1, step);
    });
    s.append("turn/end", { turn, reason: spec.end ?? { kind: "completed" } });
    return this;
  }

  /** Opens a turn and leaves it open after `steps` (to simulate a crash). */
  openTurn(prompt: string, steps: readonly StepSpec[] = [], unansweredCalls: readonly ToolCallSpec[] = []): this {
    const s = this.session;
    const turn = s.lastTurn + 1;
    s.append("turn/start", { turn, trigger: "send" });
    s.append("user/message", { content: [text(prompt)], source: "user" });
    steps.forEach((step, i) => {
      this.step(turn, i + 1, step);
    });
    if (unansweredCalls.length > 0) {
      const step = steps.length + 1;
      s.append("step/start", { turn, step });
      this.writer.record(this.#header);
      const calls = unansweredCalls.map((c) => ({ ...c, callId: this.#nextCallId() }));
      s.append("assistant/message", {
        turn,
        step,
        content: calls.map((c) => ({
          type: "tool-call" as const,
          callId: c.callId,
          name: c.name,
          arguments: c.args ?? "{}",
        })),
      });
      const first = calls[0]!;
      s.append("tool/call", { turn, step, callId: first.callId, name: first.name, arguments: first.args ?? "{}" });
    }
    return this;
  }

  step(turn: number, step: number, spec: StepSpec): void {
    const s = this.session;
    if (spec.injectBefore !== undefined)
      s.append("context/message", { content: [text(spec.injectBefore)], source: "inject" });
    if (spec.header !== undefined) this.#header = spec.header;
    s.append("step/start", { turn, step });
    this.writer.record(this.#header);
    const calls = (spec.toolCalls ?? []).map((c) => ({ ...c, callId: this.#nextCallId() }));
    s.append("assistant/message", {
      turn,
      step,
      content: [
        ...(spec.text === undefined ? [] : [text(spec.text)]),
        ...calls.map((c) => ({
          type: "tool-call" as const,
          callId: c.callId,
          name: c.name,
          arguments: c.args ?? "{}",
        })),
      ],
      usage: { inputTokens: 10, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 5 },
    });
    for (const c of calls)
      s.append("tool/call", { turn, step, callId: c.callId, name: c.name, arguments: c.args ?? "{}" });
    for (const c of calls) {
      s.append("tool/result", {
        turn,
        step,
        callId: c.callId,
        content: [text(c.result ?? `result of ${c.name}`)],
        isError: c.isError ?? false,
      });
    }
    s.append("step/end", { turn, step });
  }

  #nextCallId(): string {
    this.#callCounter++;
    return `call_${this.session.id}_${this.#callCounter}`;
  }
}

/** A two-turn log with a tool round trip: the shape of the README example. */
export function twoTurnLog(session: Session = newSession(), header: EpochHeader = baseHeader()): Session {
  return new LogDriver(session, header)
    .turn({
      prompt: "What is in notes.txt?",
      steps: [
        { text: "Let me read it.", toolCalls: [{ name: "read", args: '{"path":"notes.txt"}', result: "buy milk" }] },
        { text: "It says: buy milk." },
      ],
    })
    .turn({ prompt: "Thanks!", steps: [{ text: "You're welcome." }] }).session;
}

/**
 * Turn 1 of `twoTurnLog`, then a compaction turn whose summary replaces all four history nodes
 * (user, assistant with the call, tool result, final answer), then a turn "Thanks!".
 */
export function compactedLog(session: Session = newSession()): Session {
  const driver = new LogDriver(session).turn({
    prompt: "What is in notes.txt?",
    steps: [
      { text: "Let me read it.", toolCalls: [{ name: "read", args: '{"path":"notes.txt"}', result: "buy milk" }] },
      { text: "It says: buy milk." },
    ],
  });
  const turn = session.lastTurn + 1;
  session.append("turn/start", { turn, trigger: "compact" });
  session.append("compact/start", { turn, trigger: "manual" });
  session.append(
    "user/message",
    { content: [text("Summary: notes.txt says buy milk.")], source: "compaction" },
    { op: "replace", start: 0, end: 3 },
  );
  session.append("compact/end", { turn });
  session.append("turn/end", { turn, reason: { kind: "completed" } });
  return driver.turn({ prompt: "Thanks!", steps: [{ text: "You're welcome." }] }).session;
}
