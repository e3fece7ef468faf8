// The turn-event vocabulary `agent.stream()` yields, and the pure mapping from a committed log
// event to its turn event. Live-only events (block starts, deltas, ends) carry the ids their
// content will have in the log (a tool call's `callId` from its first delta on); every event that
// corresponds to a logged event carries that event's `seq`, so a client's position is a seq.
import type { AssistantContent, ToolResultPart, Usage, UserContent } from "../messages/index.js";
import type { AnySessionEvent, EventDataMap, SessionEvent, TurnEndReason } from "../session/index.js";
import type { TurnOutcome } from "./types.js";

/** The log's id for the tool call at content position `index` of a step's answer. */
export const loopCallId = (turn: number, step: number, index: number): string => `call_${turn}_${step}_${index}`;

/** The id of a text or reasoning block while it streams: stable for the step's final attempt. */
export const liveBlockId = (kind: "text" | "reasoning", turn: number, step: number, index: number): string =>
  `${kind}_${turn}_${step}_${index}`;

/** Where a live block sits: the step's answer, content position `index`. */
interface BlockAt {
  readonly turn: number;
  readonly step: number;
  readonly index: number;
}

/** Live-only events: streamed from the provider, never logged as such (the committed answer replaces them). */
export type LiveTurnEvent =
  | (BlockAt & { readonly type: "text-start" | "text-end"; readonly id: string })
  | (BlockAt & { readonly type: "text-delta"; readonly id: string; readonly delta: string })
  | (BlockAt & { readonly type: "reasoning-start" | "reasoning-end"; readonly id: string })
  | (BlockAt & { readonly type: "reasoning-delta"; readonly id: string; readonly delta: string })
  | (BlockAt & { readonly type: "tool-call-start"; readonly callId: string; readonly name: string })
  | (BlockAt & { readonly type: "tool-call-delta"; readonly callId: string; readonly delta: string })
  | (BlockAt & { readonly type: "tool-call-end"; readonly callId: string })
  | ToolProgressEvent;

/** A live block's end. */
export type BlockEndEvent = Extract<LiveTurnEvent, { type: "text-end" | "reasoning-end" | "tool-call-end" }>;

/**
 * Whether `event` is a live block's end — which every feed delivers only for a block none of
 * whose deltas it dropped, so a consumer may end its part on it (turn-feed.ts, the fleet's
 * follow-merge.ts).
 */
export const isBlockEnd = (event: { readonly type: string }): event is BlockEndEvent =>
  event.type === "text-end" || event.type === "reasoning-end" || event.type === "tool-call-end";

/**
 * A running call's progress report (an MCP server's `notifications/progress`): live only, never
 * logged; `turn`/`step` name the step that made the call.
 */
export interface ToolProgressEvent {
  readonly type: "tool-progress";
  readonly turn: number;
  readonly step: number;
  readonly callId: string;
  readonly progress: number;
  readonly total?: number;
  readonly message?: string;
}

/** Events that stand for one logged event (`seq` is its position in the log). */
export type CommittedTurnEvent =
  | { readonly type: "turn-start"; readonly seq: number; readonly turn: number; readonly trigger: string }
  | {
      readonly type: "user-message";
      readonly seq: number;
      readonly content: readonly UserContent[];
      readonly source: string;
    }
  | { readonly type: "step-start"; readonly seq: number; readonly turn: number; readonly step: number }
  | {
      readonly type: "assistant-message";
      readonly seq: number;
      readonly turn: number;
      readonly step: number;
      /** The committed answer: tool calls carry the log's `callId`. Replaces the step's deltas. */
      readonly content: readonly AssistantContent[];
      readonly usage?: Usage;
      readonly stopReason?: string;
    }
  | {
      /** The call is logged and about to run (`arguments` is the model's JSON text). */
      readonly type: "tool-call-ready";
      readonly seq: number;
      readonly turn: number;
      readonly step: number;
      readonly callId: string;
      readonly name: string;
      readonly arguments: string;
    }
  | {
      readonly type: "tool-result";
      readonly seq: number;
      readonly turn: number;
      readonly step: number;
      readonly callId: string;
      readonly content: readonly ToolResultPart[];
      readonly isError: boolean;
      readonly error?: string;
    }
  | {
      readonly type: "step-end";
      readonly seq: number;
      readonly turn: number;
      readonly step: number;
      /** False when the step's request was never sent (an abort or error before the call). */
      readonly dispatched: boolean;
    }
  /**
   * A tool call needs a person's approval (the logged `approval/request`: `arguments` is the
   * model's JSON text). Unless a decision follows in the same turn, the turn ends
   * `awaiting-approval` and the call waits for `agent.decide(callId, …)`.
   */
  | ({ readonly type: "approval-request"; readonly seq: number } & EventDataMap["approval/request"])
  /** The decision on a call's approval (the logged `approval/decision`). */
  | ({ readonly type: "approval-decision"; readonly seq: number } & EventDataMap["approval/decision"])
  /**
   * A tool asks a person a question (the logged `input/request`: `id` is the asking call's id).
   * Unless an answer follows in the same turn, the turn ends `awaiting-input` and the call waits
   * for `agent.respond(id, …)`.
   */
  | ({
      readonly type: "input-request";
      readonly seq: number;
      /**
       * For a question asked before its call runs (no `callId`): the asking call's tool-call block
       * (name and arguments, from the step's answer earlier in the log), so a client that holds
       * the call's part can mark it as asking without the answer message — a continuation's
       * stream starts after it. Added where the log is at hand (`agent.stream()`, `follow()`, a
       * stored follow, a fleet follower that read the answer: asking-calls.ts); absent where it is not.
       */
      readonly call?: { readonly name: string; readonly arguments: string };
    } & EventDataMap["input/request"])
  /** The answer to a question (the logged `input/response`). */
  | ({ readonly type: "input-response"; readonly seq: number } & EventDataMap["input/response"])
  | {
      /** A provider call failed and is retried: the step's live blocks start over. */
      readonly type: "retry";
      readonly seq: number;
      readonly turn: number;
      readonly step: number;
      readonly attempt: number;
      readonly code: string;
      readonly delayMs: number;
    }
  | {
      readonly type: "compaction-start";
      readonly seq: number;
      readonly turn: number;
      readonly trigger: string;
    }
  | { readonly type: "compaction-end"; readonly seq: number; readonly turn: number; readonly error?: string }
  | {
      /** The turn's `turn/end`; `outcome` is there when the stream ran the turn (it adds `text` and `saved`). */
      readonly type: "turn-end";
      readonly seq: number;
      readonly turn: number;
      readonly reason: TurnEndReason;
      readonly outcome?: TurnOutcome;
    }
  | {
      /** Any other logged event (context, steering, blocked prompts, request headers, summaries), as logged. */
      readonly type: "log-event";
      readonly seq: number;
      readonly event: AnySessionEvent;
    };

/**
 * A committed event of a subagent's session (src/loop subagent tools), live: `path` lists the
 * session ids from this agent's session down to the one the event was logged in (inclusive of
 * both: `[parent, child]`, `[parent, child, grandchild]`), `callId` is this session's tool call
 * that started `path[1]`. Only committed events are forwarded (a child's deltas are not): an
 * `approval-request` here is a subagent's pending approval, and `path` says whose.
 */
export interface SubagentTurnEvent {
  readonly type: "subagent";
  readonly callId: string;
  readonly path: readonly string[];
  readonly event: CommittedTurnEvent;
}

/** One event of a streamed turn (a discriminated union on `type`). */
export type TurnEvent = LiveTurnEvent | CommittedTurnEvent | SubagentTurnEvent;
export type TurnEventType = TurnEvent["type"];

type Writable<T> = { -readonly [K in keyof T]: T[K] };

const of = <T extends AnySessionEvent["type"]>(event: SessionEvent, _type: T): SessionEvent<T>["data"] =>
  event.data as SessionEvent<T>["data"];

/** The turn event a committed log event stands for (pure; `outcome` is never set here). */
export function committedTurnEvent(event: SessionEvent): CommittedTurnEvent {
  const { seq } = event;
  switch (event.type) {
    case "turn/start": {
      const d = of(event, "turn/start");
      return { type: "turn-start", seq, turn: d.turn, trigger: d.trigger };
    }
    case "user/message": {
      const d = of(event, "user/message");
      return { type: "user-message", seq, content: d.content, source: d.source };
    }
    case "step/start": {
      const d = of(event, "step/start");
      return { type: "step-start", seq, turn: d.turn, step: d.step };
    }
    case "assistant/message": {
      const d = of(event, "assistant/message");
      // Optional fields assigned, not spread: this runs for every step of every stream.
      const out: Writable<Extract<CommittedTurnEvent, { type: "assistant-message" }>> = {
        type: "assistant-message",
        seq,
        turn: d.turn,
        step: d.step,
        content: d.content,
      };
      if (d.usage !== undefined) out.usage = d.usage;
      if (d.stopReason !== undefined) out.stopReason = d.stopReason;
      return out;
    }
    case "tool/call": {
      const d = of(event, "tool/call");
      return {
        type: "tool-call-ready",
        seq,
        turn: d.turn,
        step: d.step,
        callId: d.callId,
        name: d.name,
        arguments: d.arguments,
      };
    }
    case "tool/result": {
      const d = of(event, "tool/result");
      const out: Writable<Extract<CommittedTurnEvent, { type: "tool-result" }>> = {
        type: "tool-result",
        seq,
        turn: d.turn,
        step: d.step,
        callId: d.callId,
        content: d.content,
        isError: d.isError,
      };
      if (d.error !== undefined) out.error = d.error;
      return out;
    }
    case "step/end": {
      const d = of(event, "step/end");
      return { type: "step-end", seq, turn: d.turn, step: d.step, dispatched: d.dispatched !== false };
    }
    case "approval/request": {
      const d = of(event, "approval/request");
      return { type: "approval-request", seq, ...d };
    }
    case "approval/decision": {
      const d = of(event, "approval/decision");
      return { type: "approval-decision", seq, ...d };
    }
    case "input/request":
      return { type: "input-request", seq, ...of(event, "input/request") };
    case "input/response":
      return { type: "input-response", seq, ...of(event, "input/response") };
    case "llm/retry": {
      const d = of(event, "llm/retry");
      return { type: "retry", seq, turn: d.turn, step: d.step, attempt: d.attempt, code: d.code, delayMs: d.delayMs };
    }
    case "compact/start": {
      const d = of(event, "compact/start");
      return { type: "compaction-start", seq, turn: d.turn, trigger: d.trigger };
    }
    case "compact/end": {
      const d = of(event, "compact/end");
      return { type: "compaction-end", seq, turn: d.turn, ...(d.error === undefined ? {} : { error: d.error }) };
    }
    case "turn/end": {
      const d = of(event, "turn/end");
      return { type: "turn-end", seq, turn: d.turn, reason: d.reason };
    }
    default:
      return { type: "log-event", seq, event: event as AnySessionEvent };
  }
}

/** True for events that stand for a logged event (they carry `seq`). */
export const isCommittedTurnEvent = (event: TurnEvent): event is CommittedTurnEvent => "seq" in event;

/** The committed turn events' types (each carries its `seq`): what a reader of events from outside checks them by. */
export const COMMITTED_TURN_EVENT_TYPES: ReadonlySet<string> = new Set<CommittedTurnEvent["type"]>([
  "turn-start",
  "user-message",
  "step-start",
  "assistant-message",
  "tool-call-ready",
  "tool-result",
  "step-end",
  "approval-request",
  "approval-decision",
  "input-request",
  "input-response",
  "retry",
  "compaction-start",
  "compaction-end",
  "turn-end",
  "log-event",
]);

/** The live delta events' types (each carries its text as `delta`). */
export const DELTA_TURN_EVENT_TYPES: ReadonlySet<string> = new Set<LiveTurnEvent["type"]>([
  "text-delta",
  "reasoning-delta",
  "tool-call-delta",
]);
