// A subagent's pause in the parent's UI message (docs/decisions/0025, "Answering a child's
// pause"). A child's work stays out of the parent's message — except what a person must answer:
// a child's `approval-request` becomes a tool part of the child's tool (approval-requested), a
// child's question (`input-request`) a tool part waiting for its output, each in a UI step of its
// own (so `lastAssistantMessageIsCompleteWithAnswers` (ui-send-when.ts), which reads the last
// step, sends once they are answered) with the part id `<session>:<callId>` (`subagentPartId`:
// a child's call ids repeat its parent's) and `providerMetadata.keelson { session, path, callId }`.
// The parent's own request that stands for the child's pause (its subagent call's) is not
// shown as an approval: answering the child's continues both. In a continuation, the child's
// answered calls get their outputs on those parts; a call held behind them, which nobody
// answered, has no part (as on reload). Pure state, fed by ui-encoder.ts.
import type { SubagentTurnEvent } from "../loop/index.js";
import type { AnsweredRequests } from "./ui-answered-requests.js";
import { askedQuestion, toolErrorText, toolInput, toolOutput } from "./ui-parts.js";
import type { ToolCallPart } from "./ui-step.js";
import type { AskedQuestion, UIMessageChunk } from "./ui-types.js";

/** What a child's part asks the person, if it is a question: and the call it asks during, if any. */
interface Asks {
  readonly call?: string;
  readonly question?: AskedQuestion;
}

/** The UI part id of a subagent's tool call: its session id and its call id (`<session>:<callId>`). */
export const subagentPartId = (session: string, callId: string): string => `${session}:${callId}`;

type ChildEvent = SubagentTurnEvent["event"];

export class SubagentParts {
  /** The top-level session (every subagent event's `path[0]`). */
  #root: string | undefined;
  /** Every session this stream carried events of. */
  readonly #sessions = new Set<string>();
  /** The children's tool calls made in this stream (their answers): name and input, by part id. */
  readonly #calls = new Map<string, ToolCallPart>();
  /**
   * A child's calls a person answered in this stream (its logged decision or answer): in a
   * continuation, the held calls whose parts the client has (the paused message asked it).
   */
  readonly #answeredHere = new Set<string>();
  /** Parts this stream gave the client. */
  readonly #parts = new Set<string>();
  readonly #denied = new Set<string>();
  /** A UI step for the children's pauses is open (until the parent's next step). */
  #pauseStep = false;
  /** The requests this stream sent, moved on by their answers (the encoder's, shared). */
  readonly #answers: AnsweredRequests;

  constructor(answers: AnsweredRequests) {
    this.#answers = answers;
  }

  /** The parent entered a step of its own: a later pause opens a UI step again. */
  stepEntered(): void {
    this.#pauseStep = false;
  }

  /**
   * True when `session`'s call `callId` started a subagent whose events this stream carried:
   * its approval request stands for the child's pause (or the subagent's result is no part).
   */
  viaSubagent(callId: string, session = this.#root): boolean {
    if (session === undefined) return false;
    const child = `${session}.${callId}`;
    for (const s of this.#sessions) if (s === child || s.startsWith(`${child}.`)) return true;
    return false;
  }

  /** The chunks for one subagent event; `continuation`: the stream continues a paused message. */
  encode(wrapped: SubagentTurnEvent, continuation: boolean): UIMessageChunk[] {
    const { path, event } = wrapped;
    const session = path.at(-1)!;
    this.#root ??= path[0];
    this.#sessions.add(session);
    const id = (callId: string): string => subagentPartId(session, callId);
    switch (event.type) {
      case "assistant-message":
        for (const block of event.content)
          if (block.type === "tool-call")
            this.#calls.set(id(block.callId), { name: block.name, input: toolInput(block.arguments) });
        return [];
      case "approval-request": {
        if (this.viaSubagent(event.callId, session)) return []; // the grandchild's part says it
        const partId = id(event.callId);
        const call = { name: event.tool, input: toolInput(event.arguments) };
        const { chunks, denied } = this.#answers.approvalSent(partId, call);
        if (denied) this.#denied.add(partId);
        return [
          ...this.#part(partId, call, path, event.callId),
          { type: "tool-approval-request", approvalId: partId, toolCallId: partId },
          ...chunks,
        ];
      }
      case "input-request": {
        // A question asked while its call runs (MCP elicitation, `ToolContext.ask`): a part of its
        // own (id `<session>:<question id>`, input the question), waiting for its output.
        const asked = askedQuestion(event);
        if (event.callId !== undefined) {
          const question = { name: event.source, input: { message: event.message, schema: event.schema } };
          return [
            ...this.#part(id(event.id), question, path, event.id, { call: event.callId, question: asked }),
            ...this.#answers.questionSent(id(event.id)),
          ];
        }
        // A question asked before its call runs (`id` is the call's): the part waits for its output.
        const partId = id(event.id);
        const call =
          this.#calls.get(partId) ??
          (event.call === undefined
            ? { name: event.source, input: undefined }
            : { name: event.call.name, input: toolInput(event.call.arguments) });
        // Asked in a continuation, of a call the paused message holds (approved, then asking): its
        // part is restated in place — in the pause step the client has, no step of its own.
        const restated =
          continuation && !this.#parts.has(partId) && !this.#calls.has(partId) && event.call !== undefined;
        if (restated) this.#parts.add(partId);
        return [
          ...(restated
            ? [this.#inputChunk(partId, call, path, event.id, { question: asked })]
            : this.#part(partId, call, path, event.id, { question: asked })),
          ...this.#answers.questionSent(partId),
        ];
      }
      case "input-response":
        this.#answeredHere.add(id(event.id));
        return this.#answers.answered(id(event.id), event.value);
      case "approval-decision": {
        this.#answeredHere.add(id(event.callId));
        const input = event.arguments === undefined ? undefined : toolInput(event.arguments);
        const answer = this.#answers.decided(id(event.callId), event.approve, input);
        if (answer !== undefined) {
          if (answer.undenied) this.#denied.delete(id(event.callId));
          return answer.chunks;
        }
        if (!this.#answered(id(event.callId), continuation, event.callId, session)) return [];
        this.#denied.add(id(event.callId));
        return [{ type: "tool-output-denied", toolCallId: id(event.callId) }];
      }
      case "tool-result":
        return this.#result(event, id(event.callId), continuation, session);
      default:
        return [];
    }
  }

  /** A tool part for a child's call (in the pause step), unless the client has it from this stream. */
  #part(
    partId: string,
    call: ToolCallPart,
    path: readonly string[],
    callId: string,
    asks: Asks = {},
  ): UIMessageChunk[] {
    if (this.#parts.has(partId)) return [];
    this.#parts.add(partId);
    const step: UIMessageChunk[] = this.#pauseStep ? [] : [{ type: "start-step" }];
    this.#pauseStep = true;
    return [...step, this.#inputChunk(partId, call, path, callId, asks)];
  }

  #inputChunk(
    partId: string,
    call: ToolCallPart,
    path: readonly string[],
    callId: string,
    asks: Asks = {},
  ): UIMessageChunk {
    const keelson = {
      session: path.at(-1)!,
      path: [...path],
      callId,
      ...(asks.call === undefined ? {} : { call: asks.call }),
      ...(asks.question === undefined ? {} : { question: asks.question }),
    };
    return {
      type: "tool-input-available",
      toolCallId: partId,
      toolName: call.name,
      input: call.input,
      providerMetadata: { keelson },
    };
  }

  /**
   * Whether the client has a part for the child's call: one this stream gave it, or — in a
   * continuation — a call made before this stream (a held one: the paused message's).
   */
  #answered(partId: string, continuation: boolean, callId: string, session: string): boolean {
    if (this.#parts.has(partId)) return true;
    return continuation && !this.#calls.has(partId) && !this.viaSubagent(callId, session);
  }

  #result(
    event: Extract<ChildEvent, { type: "tool-result" }>,
    partId: string,
    continuation: boolean,
    session: string,
  ): UIMessageChunk[] {
    if (this.#denied.has(partId) || !this.#answered(partId, continuation, event.callId, session)) return [];
    // A held call has a part on the page only when the paused message asked a person about it
    // (answered in this stream): one held behind another's request needs nobody, and has none —
    // as on reload. The output updates the part the client has, its metadata (a question's) kept.
    if (!this.#parts.has(partId) && !this.#answeredHere.has(partId)) return [];
    this.#parts.add(partId);
    return resultChunks(event, partId);
  }
}

function resultChunks(event: Extract<ChildEvent, { type: "tool-result" }>, partId: string): UIMessageChunk[] {
  if (!event.isError) return [{ type: "tool-output-available", toolCallId: partId, output: toolOutput(event.content) }];
  return [{ type: "tool-output-error", toolCallId: partId, errorText: toolErrorText(event.content, event.error) }];
}
