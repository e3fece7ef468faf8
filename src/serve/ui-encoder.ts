// UIMessageEncoder: the pure state machine from a turn's events to UI message stream chunks —
// one assistant message per stream (`start` … `finish`; no `start` for a turn that ends before
// anything of a message, so the page makes none, as uiMessagesFromLog), one UI step per logged step, parts
// reconciled with each committed answer (ui-step.ts), tool outputs from the logged results, a
// transient `data-keelson` part per committed event, a transient `data-tool-progress` part per
// progress report of a running call, a part per question a call asks while it runs, and the
// turn's end mapped to a finish reason. No I/O: ui-message-stream.ts pulls events through it.
import type { CommittedTurnEvent, TurnEvent } from "../loop/index.js";
import type { TurnEndReason } from "../session/index.js";
import { turnEventOf } from "./encoder-input.js";
import { checkOptions } from "./options-check.js";
import { AnsweredRequests } from "./ui-answered-requests.js";
import {
  askedQuestion,
  assistantMessageId,
  boundedErrorText,
  continuedMessageId,
  continuesPausedTurn,
  isInputError,
  toolErrorText,
  toolInput,
  toolOutput,
} from "./ui-parts.js";
import { UI_ENCODER_OPTION_KINDS, type UIEncoderOptions } from "./ui-encoder-options.js";
import { metadataFor } from "./ui-metadata.js";
import { queuedAnswersByPart } from "./ui-queued-answers.js";
import { keelsonData } from "./ui-keelson-data.js";
import { StepParts, type ToolCallPart } from "./ui-step.js";
import { SubagentParts } from "./ui-subagent.js";
import type { UIFinishReason, UIMessageChunk } from "./ui-types.js";

type TurnEnd = Extract<CommittedTurnEvent, { type: "turn-end" }>;

export class UIMessageEncoder {
  readonly #options: UIEncoderOptions;
  #started = false;
  /** Chunks of events seen before the turn was known (`start` goes first). */
  #pending: UIMessageChunk[] = [];
  #step: StepParts | undefined;
  #finished = false;
  /** Calls denied on this stream: their error result is the `tool-output-denied` already sent. */
  readonly #denied = new Set<string>();
  /**
   * The turn of a continuation (trigger `approval`: answers to a paused turn; `cancel`: its cancel), whose stream
   * continues the client's message of the paused turn; undefined for any other stream.
   */
  #continues: number | undefined;
  /** Held calls the continuation runs (their parts are in the client's message): name and input. */
  readonly #held = new Map<string, ToolCallPart>();
  /** The stream continues a paused message (its first event starts a `continuesPausedTurn` turn, its own or a subagent's). */
  #continuation = false;
  /** Requests this stream sent, moved on by their answers (ui-answered-requests.ts). */
  readonly #answers: AnsweredRequests;
  /** Subagents' pauses shown as parts, and their answers (ui-subagent.ts). */
  readonly #subagents: SubagentParts;
  /**
   * A paused turn's `finish`, held until the next event: when that is the turn that answers it (a
   * replay of the whole message, `openTurnFrom`), the message goes on; anything else, or the end
   * of the events, sends it.
   */
  #pausedFinish: UIMessageChunk | undefined;
  /** Whether no event was encoded yet. */
  #first = true;
  /**
   * The stream starts at a steering message (`openTurnFrom` replays the message that follows
   * one): the message is the one `uiMessagesFromLog` names `turn-<turn>-<seq of its first
   * step-start>`, started there.
   */
  #split = false;

  /** Throws `ServeError('invalid-options')` for options of the wrong type (a `messageId` that is no string). */
  constructor(options: UIEncoderOptions = {}) {
    checkOptions(options, UI_ENCODER_OPTION_KINDS, "UIMessageEncoder");
    this.#options = options;
    const queued = options.queuedAnswers;
    this.#answers = new AnsweredRequests(queued === undefined ? undefined : queuedAnswersByPart(queued));
    this.#subagents = new SubagentParts(this.#answers);
  }

  /** True once `finish` was sent: the stream is over (one turn per stream). */
  get finished(): boolean {
    return this.#finished;
  }

  /** The chunks for one event, in order. Throws `ServeError('invalid-event')` for a value that is no turn event. */
  encode(value: TurnEvent): UIMessageChunk[] {
    if (this.#finished) return [];
    const event = turnEventOf(value);
    if (this.#pausedFinish !== undefined) {
      const finish = this.#pausedFinish;
      this.#pausedFinish = undefined;
      if (!(event.type === "turn-start" && continuesPausedTurn(event.trigger))) {
        this.#finished = true;
        return [finish];
      }
      // The paused turn's continuation, in the same stream: the message's parts are this stream's.
      this.#continuation = true;
      this.#continues = event.turn;
    }
    if (this.#first) {
      this.#first = false;
      this.#split = this.#options.messageId === undefined && splitsTurn(event);
    }
    // The position first: a client that sees `finish` has already seen the turn-end's seq.
    const out: UIMessageChunk[] =
      "seq" in event && this.#options.keelsonData !== false
        ? [{ type: "data-keelson", data: keelsonData(event, this.#errorText), transient: true }]
        : [];
    const metadata = this.#options.messageMetadata;
    const extra = metadata === undefined ? undefined : metadataFor(metadata, event);
    if (extra !== undefined) out.push({ type: "message-metadata", messageMetadata: extra }); // before a finish
    if (!this.#started && startsAnswers(event)) this.#continuation = true;
    if (this.#continuation && this.#continues === undefined && event.type === "turn-start")
      this.#continues = event.turn;
    out.push(...this.#content(event));
    if (this.#split && !this.#started) {
      if (event.type === "step-start")
        return [...this.#start(event.turn, continuedMessageId(event.turn, event.seq)), ...out];
      if (event.type !== "turn-end") {
        this.#pending.push(...out);
        return [];
      }
    }
    const turn = "turn" in event ? event.turn : undefined;
    if (!this.#started && turn === undefined && this.#options.messageId === undefined && !this.#continuation) {
      this.#pending.push(...out);
      return [];
    }
    // Nothing for the message yet (a turn's start, its prompt): held, so that `start` still goes
    // first, until the first part — a turn that ends before any (rejected, cancelled or failed
    // before its first step) makes no assistant message on the page, as on reload (the AI SDK's
    // schema has no message without parts): its chunks go out without `start`.
    if (!this.#started && !out.some(opensMessage)) {
      if (!this.#finished) {
        this.#pending.push(...out);
        return [];
      }
      return [...this.#takePending(), ...out];
    }
    return [...this.#start(turn), ...out];
  }

  #takePending(): UIMessageChunk[] {
    const pending = this.#pending;
    this.#pending = [];
    return pending;
  }

  /** The chunks that end the message when the events ended without a `turn-end` (or at a paused one), or threw. */
  end(error?: { readonly error: unknown }): UIMessageChunk[] {
    if (this.#finished) return [];
    const paused = this.#pausedFinish;
    this.#pausedFinish = undefined;
    if (paused !== undefined && error === undefined) {
      this.#finished = true;
      return [paused];
    }
    const out = [...this.#takePending(), ...this.#closeStep()];
    this.#finished = true;
    if (error === undefined) return [...out, { type: "finish" }];
    return [
      ...out,
      { type: "error", errorText: this.#errorText(error.error) },
      { type: "finish", finishReason: "error" },
    ];
  }

  #start(turn: number | undefined, id?: string): UIMessageChunk[] {
    if (this.#started) return [];
    this.#started = true;
    // A continuation keeps the client's message (and its id): a new id would make it a second message.
    const messageId =
      this.#options.messageId ??
      id ??
      (turn === undefined || this.#continuation ? undefined : assistantMessageId(turn));
    return [messageId === undefined ? { type: "start" } : { type: "start", messageId }, ...this.#takePending()];
  }

  #content(event: TurnEvent): UIMessageChunk[] {
    // Progress of a running call (held ones included): transient, for `onData`; no part changes.
    if (event.type === "tool-progress") return [toolProgress(event)];
    if (this.#continues !== undefined && "step" in event && event.turn !== this.#continues)
      return this.#heldCall(event);
    switch (event.type) {
      case "step-start":
        return this.#enterStep(event.turn, event.step);
      case "assistant-message": {
        const enter = this.#enterStep(event.turn, event.step);
        return [...enter, ...this.#step!.answer(event.content)];
      }
      case "tool-call-ready": {
        const out = this.#enterStep(event.turn, event.step);
        if (this.#step!.tool(event.callId) !== undefined) return out;
        const input = toolInput(event.arguments);
        this.#step!.addTool(event.callId, { name: event.name, input });
        return [...out, { type: "tool-input-available", toolCallId: event.callId, toolName: event.name, input }];
      }
      case "tool-result":
        return this.#denied.has(event.callId) ? [] : this.#toolResult(event);
      case "approval-request": {
        const out = this.#enterStep(event.turn, event.step);
        if (this.#step!.tool(event.callId) === undefined) {
          const input = toolInput(event.arguments);
          this.#step!.addTool(event.callId, { name: event.tool, input });
          out.push({ type: "tool-input-available", toolCallId: event.callId, toolName: event.tool, input });
        }
        // A subagent's pause: the child's request is the part the person answers (ui-subagent.ts).
        if (this.#subagents.viaSubagent(event.callId)) return out;
        return [...out, ...this.#approvalRequest(event.callId, this.#step!.tool(event.callId)!)];
      }
      case "approval-decision": {
        const input = event.arguments === undefined ? undefined : toolInput(event.arguments);
        const answer = this.#answers.decided(event.callId, event.approve, input);
        if (answer !== undefined) {
          if (answer.undenied) this.#denied.delete(event.callId);
          return answer.chunks;
        }
        // A denial. In a continuation the decided call is a held one, whose part the client has.
        if (this.#step?.tool(event.callId) === undefined && this.#continues === undefined) return [];
        this.#denied.add(event.callId);
        return [{ type: "tool-output-denied", toolCallId: event.callId }];
      }
      case "retry":
        return [...this.#enterStep(event.turn, event.step), ...this.#step!.retry(event.attempt)];
      case "step-end":
        return this.#sameStep(event.turn, event.step) ? this.#closeStep() : [];
      case "turn-end":
        return this.#turnEnd(event);
      case "input-request": {
        // A question asked while its call runs (MCP elicitation, `ToolContext.ask`): a part of its own,
        // answered on the page (id: the question's). One asked before its call runs is the call's part:
        // restated with its mark — a held call asked in a continuation from the call the event carries.
        const call =
          event.callId === undefined
            ? (this.#step?.tool(event.id) ??
              (event.call === undefined
                ? undefined
                : { name: event.call.name, input: toolInput(event.call.arguments) }))
            : undefined;
        const part =
          event.callId !== undefined
            ? [questionChunk(event, event.callId)]
            : call === undefined
              ? [] // no call at hand (a stream without the log's answer): the part is marked on reload
              : [askingChunk(event, call)];
        return [...part, ...this.#answers.questionSent(event.id)];
      }
      case "input-response":
        return this.#answers.answered(event.id, event.value);
      case "turn-start":
      case "user-message":
      case "compaction-start":
      case "compaction-end":
      case "log-event":
        return [];
      case "subagent": // a subagent's work stays out of the parent's message, but for its pauses (ui-subagent.ts)
        return this.#subagents.encode(event, this.#continuation);
      default:
        // A live event: it belongs to the step it names.
        return [...this.#enterStep(event.turn, event.step), ...this.#step!.live(event)];
    }
  }

  /**
   * An event of a call the paused step made, which its continuation runs outside any step: it
   * updates the part the client's message has for the call — no UI step is opened.
   */
  #heldCall(event: Extract<TurnEvent, { readonly step: number }>): UIMessageChunk[] {
    switch (event.type) {
      case "tool-call-ready":
        this.#held.set(event.callId, { name: event.name, input: toolInput(event.arguments) });
        return [];
      case "approval-request": // a call that waited behind another is asked about now
        if (this.#subagents.viaSubagent(event.callId)) return [];
        return this.#approvalRequest(event.callId, { name: event.tool, input: toolInput(event.arguments) });
      case "tool-result":
        if (this.#denied.has(event.callId)) return [];
        // A result without its call (the continuation was cancelled) is never an input error.
        return this.#resultChunks(event, this.#held.get(event.callId) ?? { name: "", input: undefined });
      default:
        return [];
    }
  }

  /** A call's approval request, and what a queued answer to it makes of its part at once. */
  #approvalRequest(callId: string, call: ToolCallPart): UIMessageChunk[] {
    const { chunks, denied } = this.#answers.approvalSent(callId, call);
    if (denied) this.#denied.add(callId);
    return [{ type: "tool-approval-request", approvalId: callId, toolCallId: callId }, ...chunks];
  }

  #toolResult(event: Extract<TurnEvent, { type: "tool-result" }>): UIMessageChunk[] {
    // No part to attach it to (the client joined after the call): the data part still carries it.
    const call = this.#sameStep(event.turn, event.step) ? this.#step!.tool(event.callId) : undefined;
    if (call === undefined) return [];
    return this.#resultChunks(event, call);
  }

  #resultChunks(event: Extract<TurnEvent, { type: "tool-result" }>, call: ToolCallPart): UIMessageChunk[] {
    if (!event.isError)
      return [{ type: "tool-output-available", toolCallId: event.callId, output: toolOutput(event.content) }];
    const errorText = toolErrorText(event.content, event.error);
    if (!isInputError(event.error) || call.name === "")
      return [{ type: "tool-output-error", toolCallId: event.callId, errorText }];
    // The call itself was bad: the part keeps the model's arguments as its raw input.
    return [{ type: "tool-input-error", toolCallId: event.callId, toolName: call.name, input: call.input, errorText }];
  }

  #turnEnd(event: TurnEnd): UIMessageChunk[] {
    const out = this.#closeStep();
    const { reason } = event;
    const finish = (finishReason: UIFinishReason): UIMessageChunk => ({ type: "finish", finishReason });
    if (reason.kind === "awaiting-approval" || reason.kind === "awaiting-input") {
      // The tool parts wait (`approval-requested`, or input-available for a question); a decision
      // or an answer continues the turn — in a new stream, or next in this one (a replay).
      this.#pausedFinish = finish("tool-calls"); // the model's calls wait, as the AI SDK's own pause says
      return out;
    }
    this.#finished = true;
    switch (reason.kind) {
      case "completed":
        return [...out, finish("stop")];
      case "max-tokens":
        return [...out, finish("length")];
      case "aborted":
        return [...out, { type: "abort", reason: boundedErrorText(reason.reason) }, finish("other")];
      case "disposed":
        return [...out, { type: "abort", reason: "disposed" }, finish("other")];
      case "rejected":
        return [...out, { type: "error", errorText: boundedErrorText(`rejected: ${reason.reason}`) }, finish("other")];
      case "interrupted":
        return [
          ...out,
          { type: "error", errorText: "interrupted: the process running the turn stopped before it ended" },
          finish("error"),
        ];
      case "error":
        return [...out, { type: "error", errorText: this.#errorText(reason) }, finish("error")];
    }
  }

  /** The client's text for `error`: asked of `errorText` once per error (the data part and the error chunk share it). */
  readonly #errorText = (error: unknown): string => {
    if (this.#said !== undefined && this.#said.error === error) return this.#said.text;
    const text = this.#textOf(error);
    this.#said = { error, text };
    return text;
  };

  #said: { readonly error: unknown; readonly text: string } | undefined;

  #textOf(error: unknown): string {
    const custom = this.#options.errorText;
    if (custom !== undefined) {
      try {
        const text: unknown = custom(error);
        if (typeof text === "string") return boundedErrorText(text);
      } catch {
        // A callback that throws must not take the stream down with it: the default text below.
      }
    }
    return maskedErrorText(error);
  }

  #sameStep(turn: number, step: number): boolean {
    return this.#step !== undefined && this.#step.turn === turn && this.#step.step === step;
  }

  /** Moves to step (turn, step): closes the previous one, opens a UI step. */
  #enterStep(turn: number, step: number): UIMessageChunk[] {
    if (this.#sameStep(turn, step)) return [];
    const out = this.#closeStep();
    this.#step = new StepParts(turn, step);
    this.#subagents.stepEntered();
    return [...out, { type: "start-step" }];
  }

  #closeStep(): UIMessageChunk[] {
    const step = this.#step;
    if (step === undefined) return [];
    this.#step = undefined;
    return [...step.close("the step ended"), { type: "finish-step" }];
  }
}

/** The part of a question asked while call `call` runs: the asking tool's, input the question. */
function questionChunk(event: Extract<TurnEvent, { type: "input-request" }>, call: string): UIMessageChunk {
  return {
    type: "tool-input-available",
    toolCallId: event.id,
    toolName: event.source,
    input: { message: event.message, schema: event.schema },
    providerMetadata: { keelson: { callId: event.id, call, question: askedQuestion(event) } },
  };
}

/** The call's part again, marked as asking a question before it runs (as `uiMessagesFromLog` marks it). */
function askingChunk(event: Extract<TurnEvent, { type: "input-request" }>, call: ToolCallPart): UIMessageChunk {
  return {
    type: "tool-input-available",
    toolCallId: event.id,
    toolName: call.name,
    input: call.input,
    providerMetadata: { keelson: { callId: event.id, question: askedQuestion(event) } },
  };
}

/** A `tool-progress` event as its transient `data-tool-progress` part. */
function toolProgress(event: Extract<TurnEvent, { type: "tool-progress" }>): UIMessageChunk {
  const { callId, progress, total, message } = event;
  const data = {
    toolCallId: callId,
    progress,
    ...(total === undefined ? {} : { total }),
    ...(message === undefined ? {} : { message }),
  };
  return { type: "data-tool-progress", data, transient: true };
}

/** Whether a chunk changes the message (its parts or metadata): what `start` must precede. */
const opensMessage = (chunk: UIMessageChunk): boolean =>
  !(
    chunk.type === "error" ||
    chunk.type === "abort" ||
    chunk.type === "finish" ||
    ("transient" in chunk && chunk.transient === true)
  );

/** A steering message (a prompt logged mid-turn): the turn's later steps are another message (uiMessagesFromLog). */
const splitsTurn = (event: TurnEvent): boolean => event.type === "log-event" && event.event.type === "steering/message";

/**
 * A turn that goes on in a paused one's message (its answers, or its cancel: `continuesPausedTurn`)
 * starts here — this session's, or a subagent's first.
 */
const startsAnswers = (event: TurnEvent): boolean =>
  (event.type === "turn-start" && continuesPausedTurn(event.trigger)) ||
  (event.type === "subagent" && event.event.type === "turn-start" && continuesPausedTurn(event.event.trigger));

/**
 * The default error text: the error's code, never its message — which may quote a provider's
 * reply, a path or a value (the AI SDK masks its errors likewise). The turn's log keeps the
 * message (`keelson show`); an app that wants it on the page, or in its own log, passes `errorText`.
 */
function maskedErrorText(error: unknown): string {
  const code = isErrorReason(error) ? error.code : (error as { code?: unknown } | undefined)?.code;
  return `${typeof code === "string" && /^[\w.-]{1,64}$/.test(code) ? code : "error"}: ${MASKED_ERROR}`;
}

/** What the default error text says after the code. */
const MASKED_ERROR = "the turn failed (the server has the details)";

const isErrorReason = (value: unknown): value is Extract<TurnEndReason, { kind: "error" }> =>
  typeof value === "object" && value !== null && (value as { kind?: unknown }).kind === "error";
