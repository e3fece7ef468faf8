// The spans of one agent, driven by what the loop logs (`session/event`) and by the provider call
// itself (`llm/stream`, so a provider SDK's own spans nest under `chat`):
//   invoke_agent            turn/start → turn/end (end reason; an error turn has status ERROR)
//   ├─ chat {model}         each provider request → its assistant/message (usage, finish reason,
//   │                       retries as `keelson.retry` events)
//   └─ execute_tool {name}  tool/call → tool/result (error code as error.type)
// Every span carries keelson.session.id and keelson.seq.start/end: the log range it covers.
// A failed span's status message is its error code unless content capture is on: error texts
// hold what the model chose (paths, commands) and what tools and servers said (an MCP server's
// stderr), which are content.
import { errorMessage } from "../errors/index.js";
import type { Context, Span, Tracer } from "@opentelemetry/api";
import type { AssistantResult, ProviderRequest } from "../llm/index.js";
import type { Agent } from "../loop/index.js";
import type { Usage } from "../messages/index.js";
import type { SessionEvent } from "../session/index.js";
import type { OtelApi } from "./api.js";
import { ATTR, type OtelTracingOptions } from "./types.js";

const KIND_INTERNAL = 0;
const KIND_CLIENT = 2;
const STATUS_ERROR = 2;

const FINISH: Readonly<Record<string, string>> = {
  stop: "stop",
  "tool-calls": "tool_calls",
  "max-tokens": "length",
};

type TurnEndData = {
  readonly kind: string;
  readonly code?: string;
  readonly message?: string;
  readonly reason?: string;
};

export class TurnSpans {
  readonly #api: OtelApi;
  readonly #tracer: Tracer;
  readonly #agent: Agent;
  readonly #options: OtelTracingOptions;
  #turn: { span: Span; context: Context } | undefined;
  #chat: { span: Span; retries: number } | undefined;
  readonly #tools = new Map<string, Span>();
  #step: { step: number; seq: number } | undefined;

  constructor(api: OtelApi, tracer: Tracer, agent: Agent, options: OtelTracingOptions) {
    this.#api = api;
    this.#tracer = tracer;
    this.#agent = agent;
    this.#options = options;
  }

  onEvent(event: SessionEvent): void {
    const data = event.data as Record<string, unknown>;
    switch (event.type) {
      case "turn/start":
        this.#startTurn(event.seq, data.turn as number);
        break;
      case "step/start":
        this.#step = { step: data.step as number, seq: event.seq };
        break;
      case "llm/retry":
        this.#retry(event.seq, data);
        break;
      case "assistant/message":
        this.#endChat(event.seq, data.usage as Usage | undefined);
        break;
      case "tool/call":
        this.#startTool(event.seq, data);
        break;
      case "tool/result":
        this.#endTool(event.seq, data);
        break;
      case "turn/end":
        this.#endTurn(event.seq, data.reason as TurnEndData);
        break;
    }
  }

  /** Around the provider call: the `chat {model}` span, active while the provider streams. */
  async around(request: ProviderRequest, next: () => Promise<AssistantResult>): Promise<AssistantResult> {
    const parent = this.#turn?.context ?? this.#api.context.active();
    const span = this.#tracer.startSpan(
      `chat ${request.model}`,
      {
        kind: KIND_CLIENT,
        attributes: {
          [ATTR.operation]: "chat",
          [ATTR.provider]: this.#agent.provider.id,
          [ATTR.requestModel]: request.model,
          [ATTR.conversation]: this.#agent.session.id,
          [ATTR.sessionId]: this.#agent.session.id,
          ...(this.#step === undefined ? {} : { [ATTR.step]: this.#step.step, [ATTR.seqStart]: this.#step.seq }),
          ...(request.temperature === undefined ? {} : { [ATTR.temperature]: request.temperature }),
          ...(request.maxTokens === undefined ? {} : { [ATTR.maxTokens]: request.maxTokens }),
          ...(request.output === undefined ? {} : { [ATTR.outputType]: "json" }),
        },
      },
      parent,
    );
    if (this.#options.captureContent === true) {
      if (request.system !== undefined) span.setAttribute(ATTR.systemInstructions, request.system);
      span.setAttribute(ATTR.inputMessages, JSON.stringify(request.messages));
    }
    this.#chat = { span, retries: 0 };
    let result: AssistantResult;
    try {
      result = await this.#api.context.with(this.#api.trace.setSpan(parent, span), next);
    } catch (error) {
      this.#fail(span, "exception", () => errorMessage(error));
      this.#chat = undefined;
      throw error;
    }
    span.setAttribute(ATTR.finishReasons, [FINISH[result.finish] ?? result.finish]);
    if (this.#options.captureContent === true) span.setAttribute(ATTR.outputMessages, JSON.stringify(result.content));
    if (result.usage !== undefined) setUsage(span, result.usage);
    if (result.finish === "error" || result.finish === "aborted") {
      this.#fail(span, result.error?.code ?? result.finish, () => result.error?.message ?? result.finish);
      this.#chat = undefined;
    }
    return result;
  }

  /** Ends whatever is open (the agent is going away). */
  endAll(why: string): void {
    if (this.#chat !== undefined) this.#fail(this.#chat.span, "aborted", () => why);
    this.#chat = undefined;
    for (const span of this.#tools.values()) this.#fail(span, "aborted", () => why);
    this.#tools.clear();
    this.#turn?.span.end();
    this.#turn = undefined;
  }

  #startTurn(seq: number, turn: number): void {
    this.endAll("a new turn started");
    const name = this.#options.agentName;
    const span = this.#tracer.startSpan(
      name === undefined ? "invoke_agent" : `invoke_agent ${name}`,
      {
        kind: KIND_INTERNAL,
        attributes: {
          [ATTR.operation]: "invoke_agent",
          [ATTR.requestModel]: this.#agent.model,
          [ATTR.provider]: this.#agent.provider.id,
          [ATTR.conversation]: this.#agent.session.id,
          [ATTR.sessionId]: this.#agent.session.id,
          [ATTR.turn]: turn,
          [ATTR.seqStart]: seq,
          ...(name === undefined ? {} : { [ATTR.agentName]: name }),
        },
      },
      this.#api.context.active(),
    );
    this.#turn = { span, context: this.#api.trace.setSpan(this.#api.context.active(), span) };
  }

  #retry(seq: number, data: Record<string, unknown>): void {
    if (this.#chat === undefined) return;
    this.#chat.retries++;
    this.#chat.span.setAttribute(ATTR.retries, this.#chat.retries);
    this.#chat.span.addEvent("keelson.retry", {
      "keelson.retry.attempt": data.attempt as number,
      "keelson.retry.code": data.code as string,
      "keelson.retry.delay_ms": data.delayMs as number,
      [ATTR.seqStart]: seq,
    });
  }

  #endChat(seq: number, usage: Usage | undefined): void {
    const chat = this.#chat;
    if (chat === undefined) return;
    if (usage !== undefined) setUsage(chat.span, usage);
    chat.span.setAttribute(ATTR.seqEnd, seq);
    chat.span.end();
    this.#chat = undefined;
  }

  #startTool(seq: number, data: Record<string, unknown>): void {
    const name = data.name as string;
    const span = this.#tracer.startSpan(
      `execute_tool ${name}`,
      {
        kind: KIND_INTERNAL,
        attributes: {
          [ATTR.operation]: "execute_tool",
          [ATTR.toolName]: name,
          [ATTR.toolCallId]: data.callId as string,
          [ATTR.toolType]: "function",
          [ATTR.sessionId]: this.#agent.session.id,
          [ATTR.step]: data.step as number,
          [ATTR.seqStart]: seq,
          ...(this.#options.captureContent === true ? { [ATTR.toolArguments]: data.arguments as string } : {}),
        },
      },
      this.#turn?.context ?? this.#api.context.active(),
    );
    this.#tools.set(data.callId as string, span);
  }

  #endTool(seq: number, data: Record<string, unknown>): void {
    const callId = data.callId as string;
    const span = this.#tools.get(callId);
    if (span === undefined) return; // a synthetic result for a call that never started
    this.#tools.delete(callId);
    span.setAttribute(ATTR.seqEnd, seq);
    if (this.#options.captureContent === true) span.setAttribute(ATTR.toolResult, JSON.stringify(data.content));
    if (data.isError === true) {
      const content = data.content as readonly { type: string; text?: string }[];
      this.#fail(span, (data.error as string | undefined) ?? "tool-error", () =>
        content.map((p) => p.text ?? "").join(""),
      );
    } else span.end();
  }

  #endTurn(seq: number, reason: TurnEndData): void {
    const turn = this.#turn;
    if (turn === undefined) return;
    const why = reason.kind === "aborted" ? `the turn was cancelled (${reason.reason ?? "aborted"})` : reason.kind;
    if (this.#chat !== undefined) this.#fail(this.#chat.span, "aborted", () => why);
    this.#chat = undefined;
    for (const span of this.#tools.values()) this.#fail(span, "aborted", () => why);
    this.#tools.clear();
    turn.span.setAttribute(ATTR.seqEnd, seq);
    turn.span.setAttribute(ATTR.endReason, reason.kind);
    if (reason.kind === "aborted" && reason.reason !== undefined)
      turn.span.setAttribute(ATTR.abortReason, reason.reason);
    if (reason.kind === "error") {
      const code = reason.code ?? "error";
      turn.span.setAttribute(ATTR.errorType, code);
      turn.span.setStatus({
        code: STATUS_ERROR,
        message: this.#statusText(code, () => reason.message ?? "the turn ended with an error"),
      });
    }
    turn.span.end();
    this.#turn = undefined;
  }

  /** `detail` (error text) ends the span's status message only with captureContent; else the code. */
  #fail(span: Span, type: string, detail: () => string): void {
    span.setAttribute(ATTR.errorType, type);
    span.setStatus({ code: STATUS_ERROR, message: this.#statusText(type, detail) });
    span.end();
  }

  #statusText(code: string, detail: () => string): string {
    return this.#options.captureContent === true ? detail() : code;
  }
}

/** Usage per the conventions: input_tokens counts cached input too (read + written). */
function setUsage(span: Span, usage: Usage): void {
  span.setAttribute(ATTR.inputTokens, usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens);
  span.setAttribute(ATTR.outputTokens, usage.outputTokens);
  span.setAttribute(ATTR.cacheRead, usage.cacheReadTokens);
  span.setAttribute(ATTR.cacheWrite, usage.cacheWriteTokens);
  if (usage.reasoningTokens !== undefined) span.setAttribute(ATTR.reasoningTokens, usage.reasoningTokens);
}
