// The AI SDK's UI message stream protocol (v1, header `x-vercel-ai-ui-message-stream: v1`) as
// far as Keelson speaks it: the chunks it sends and the UIMessage shape it builds from the log.
// Written here, not imported: `ai` is a dev dependency only. The shapes follow `ai@6.0.325`
// (its `UIMessageChunk`, `uiMessageChunkSchema` and `UIMessage`); test/serve checks every chunk
// against that schema and these types against those types.
import type { TurnEndReason } from "../session/index.js";

/** The protocol's response headers (the AI SDK's `UI_MESSAGE_STREAM_HEADERS`). */
export const UI_MESSAGE_STREAM_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  "content-type": "text/event-stream",
  "cache-control": "no-cache",
  connection: "keep-alive",
  "x-vercel-ai-ui-message-stream": "v1",
  "x-accel-buffering": "no",
});

/** The finish reasons the protocol knows. */
export type UIFinishReason = "stop" | "length" | "content-filter" | "tool-calls" | "error" | "other";

/**
 * Keelson's `data-keelson` part: one per committed event, always transient (the client's
 * `onData` sees it; it never enters the message). `seq` is the client's position in the log.
 */
export interface KeelsonData {
  readonly seq: number;
  /** The turn event's type (`turn-start`, `assistant-message`, `tool-result`, `retry`, `turn-end`, …). */
  readonly event: string;
  readonly turn?: number;
  readonly step?: number;
  readonly callId?: string;
  /** `retry`: the failed attempt's number and code. */
  readonly attempt?: number;
  readonly code?: string;
  /** `turn-end`: why the turn ended (an error's message bounded), and whether it is durable. */
  readonly reason?: TurnEndReason;
  readonly saved?: boolean;
  /** `log-event`: the logged event's type (`request/header`, `steering/message`, …); not its data. */
  readonly logType?: string;
}

/**
 * The `data-tool-progress` part: a running tool call's progress report (an MCP server's
 * `notifications/progress`), always transient — `onData` sees it, the message never holds it.
 */
export interface ToolProgressData {
  /** The log's call id: the tool part it belongs to. */
  readonly toolCallId: string;
  readonly progress: number;
  readonly total?: number;
  readonly message?: string;
}

/**
 * A subagent's tool call shown in its parent's message (a child's approval or question): the
 * session that made it, the path from the top-level session down to it, and its id there.
 */
export type SubagentCallMetadata = {
  readonly session: string;
  readonly path: string[];
  /** The id an answer names: the call's, or — for a question asked while a call runs — the question's. */
  readonly callId: string;
  /** On a question asked while a call runs (an MCP elicitation, `ToolContext.ask`): that call's id. */
  readonly call?: string;
  /** On a part that asks the person a question: what it asks. */
  readonly question?: AskedQuestion;
};

/**
 * A question a call of the session itself asks the person (the page answers it with
 * `addToolOutput`): the id the answer names and what it asks — and, for one asked while the call
 * runs (an MCP elicitation, `ToolContext.ask`; a part of its own), the asking call's id.
 */
export type QuestionCallMetadata = {
  readonly callId: string;
  readonly call?: string;
  readonly question: AskedQuestion;
};

/** What a question asks: the text the person reads and the JSON Schema the answer must match. */
export type AskedQuestion = {
  readonly message: string;
  readonly schema: { readonly [key: string]: UIJsonValue };
};

/** A JSON value as the AI SDK types provider metadata (its arrays are not readonly). */
export type UIJsonValue = string | number | boolean | null | UIJsonValue[] | { readonly [key: string]: UIJsonValue };

/** Whose call a part Keelson adds is: a subagent's (with its session), or a question asked during a call. */
export type KeelsonCallMetadata = SubagentCallMetadata | QuestionCallMetadata;

/** One chunk of the UI message stream (the subset of the AI SDK's `UIMessageChunk` Keelson sends). */
export type UIMessageChunk =
  | { readonly type: "start"; readonly messageId?: string }
  | { readonly type: "start-step" }
  | { readonly type: "text-start" | "text-end" | "reasoning-start" | "reasoning-end"; readonly id: string }
  | { readonly type: "text-delta" | "reasoning-delta"; readonly id: string; readonly delta: string }
  | { readonly type: "tool-input-start"; readonly toolCallId: string; readonly toolName: string }
  | { readonly type: "tool-input-delta"; readonly toolCallId: string; readonly inputTextDelta: string }
  | {
      readonly type: "tool-input-available";
      readonly toolCallId: string;
      readonly toolName: string;
      readonly input: unknown;
      /** On a subagent's call (a child's pause): whose call it is. The part's `callProviderMetadata`. */
      readonly providerMetadata?: { readonly keelson: KeelsonCallMetadata };
    }
  | {
      readonly type: "tool-input-error";
      readonly toolCallId: string;
      readonly toolName: string;
      readonly input: unknown;
      readonly errorText: string;
    }
  | { readonly type: "tool-output-available"; readonly toolCallId: string; readonly output: unknown }
  | { readonly type: "tool-output-error"; readonly toolCallId: string; readonly errorText: string }
  | { readonly type: "tool-approval-request"; readonly approvalId: string; readonly toolCallId: string }
  | { readonly type: "tool-output-denied"; readonly toolCallId: string }
  | { readonly type: "data-keelson"; readonly data: KeelsonData; readonly transient: true }
  | { readonly type: "data-tool-progress"; readonly data: ToolProgressData; readonly transient: true }
  | { readonly type: "message-metadata"; readonly messageMetadata: { readonly [key: string]: unknown } }
  | { readonly type: "finish-step" }
  | { readonly type: "finish"; readonly finishReason?: UIFinishReason }
  | { readonly type: "error"; readonly errorText: string }
  | { readonly type: "abort"; readonly reason?: string };

export type UIMessageChunkType = UIMessageChunk["type"];

export interface UITextPart {
  readonly type: "text";
  readonly text: string;
  readonly state?: "streaming" | "done";
}
export interface UIReasoningPart {
  readonly type: "reasoning";
  /** The block's stream id (`reasoning_<turn>_<step>_<index>`, `-r<attempt>` after a retry). */
  readonly id?: string;
  readonly text: string;
  readonly state?: "streaming" | "done";
}
/** A user's image, as a data URL. */
export interface UIFilePart {
  readonly type: "file";
  readonly mediaType: string;
  readonly url: string;
}
export interface UIStepStartPart {
  readonly type: "step-start";
}
/** The approval of a call that was approved (and then ran). */
export interface UIApproved {
  readonly id: string;
  readonly approved: true;
  readonly reason?: string;
}

/** A tool call (`type` is `tool-<name>`), in the state the log has reached. */
export type UIToolPart = {
  readonly type: `tool-${string}`;
  readonly toolCallId: string;
  /** On a subagent's call shown in its parent's message: whose call it is (ui-subagent.ts). */
  readonly callProviderMetadata?: { readonly keelson: KeelsonCallMetadata };
} & (
  | { readonly state: "input-available"; readonly input: unknown }
  | {
      readonly state: "output-available";
      readonly input: unknown;
      readonly output: unknown;
      /** A call that ran after a person approved it. */
      readonly approval?: UIApproved;
    }
  | {
      readonly state: "output-error";
      readonly input: unknown;
      readonly errorText: string;
      readonly rawInput?: unknown;
      readonly approval?: UIApproved;
    }
  | { readonly state: "approval-requested"; readonly input: unknown; readonly approval: { readonly id: string } }
  | {
      readonly state: "approval-responded";
      readonly input: unknown;
      readonly approval: { readonly id: string; readonly approved: boolean; readonly reason?: string };
    }
  | {
      readonly state: "output-denied";
      readonly input: unknown;
      readonly approval: { readonly id: string; readonly approved: false; readonly reason?: string };
    }
);
export type UIMessagePart = UITextPart | UIReasoningPart | UIFilePart | UIStepStartPart | UIToolPart;

/** The AI SDK's `UIMessage` as Keelson builds it from the log (`uiMessagesFromLog`). */
export interface UIMessage {
  readonly id: string;
  readonly role: "user" | "assistant";
  /**
   * On a prompt a `agent/prompt-submit` hook blocked: `{ blocked: reason }`; on an answer, what the
   * app's `messageMetadata` gave for its turn's events (ui-metadata.ts).
   */
  readonly metadata?: { readonly blocked?: string; readonly [key: string]: unknown };
  /** Mutable like the AI SDK's, so the list can be handed to `useChat({ messages })` as is. */
  readonly parts: UIMessagePart[];
}
