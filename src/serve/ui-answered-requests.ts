// What a replayed message must not ask again. A stream that replays a paused turn's message (a
// `useChat` reconnect: `openTurnFrom`) sends each approval request and question as it was
// logged — `approval-requested`, or a question's part waiting for its output — and the page would
// offer its buttons again until the call ran. The AI SDK's protocol has no chunk for an answer,
// so once this stream carries the answer — logged (`approval-decision`, `input-response`) or,
// in front of a fleet, queued (`queuedAnswers`: the continuation no worker has run yet) — the
// part moves on: an approved call back to `input-available` (it runs now; `approval.id` kept), a
// denied one `output-denied`, a question `output-available` with the answer. Only for requests
// this stream itself sent: a page that answered live has its parts already. Pure state, fed by
// ui-encoder.ts and ui-subagent.ts, by UI part id. The log overrules a queued answer it
// contradicts (a denial queued, an approval logged: the call runs, its output shows).
import type { QueuedAnswer } from "./ui-queued-answers.js";
import type { ToolCallPart } from "./ui-step.js";
import type { UIMessageChunk } from "./ui-types.js";

export class AnsweredRequests {
  readonly #queued: ReadonlyMap<string, QueuedAnswer>;
  /** Approval requests this stream sent and no answer moved on yet: the call, by part id. */
  readonly #approvals = new Map<string, ToolCallPart>();
  /** Questions this stream sent whose parts wait for their output, by part id. */
  readonly #questions = new Set<string>();
  /** Requests this stream sent denied, as queued, before the log said so: the call, by part id. */
  readonly #queuedDenials = new Map<string, ToolCallPart>();

  constructor(queued: ReadonlyMap<string, QueuedAnswer> = new Map()) {
    this.#queued = queued;
  }

  /**
   * The stream sent `tool-approval-request` for the part: the chunks a queued answer gives it now
   * (`denied` is true when that is a denial: its logged result is the `tool-output-denied` sent here).
   */
  approvalSent(partId: string, call: ToolCallPart): { readonly chunks: UIMessageChunk[]; readonly denied: boolean } {
    const answer = this.#queued.get(partId);
    if (answer === undefined || answer.kind === "response") {
      this.#approvals.set(partId, call);
      return { chunks: [], denied: false };
    }
    if (!answer.approve) {
      this.#queuedDenials.set(partId, call);
      return { chunks: [{ type: "tool-output-denied", toolCallId: partId }], denied: true };
    }
    return { chunks: [restated(partId, call)], denied: false };
  }

  /**
   * The logged decision on the part's call (`input`: the arguments an approval edited). An
   * approval moves a part this stream left `approval-requested` back to `input-available`; the log
   * overrules a queued denial sent earlier (`undenied`: the call runs after all, its result counts).
   * Undefined for a denial this stream did not send already: the encoder's own to send.
   */
  decided(
    partId: string,
    approve: boolean,
    input?: unknown,
  ): { readonly chunks: UIMessageChunk[]; readonly undenied: boolean } | undefined {
    const denied = this.#queuedDenials.get(partId);
    const call = denied ?? this.#approvals.get(partId);
    this.#queuedDenials.delete(partId);
    this.#approvals.delete(partId);
    if (!approve) return denied === undefined ? undefined : { chunks: [], undenied: false };
    if (call === undefined) return { chunks: [], undenied: false };
    return {
      chunks: [restated(partId, input === undefined ? call : { name: call.name, input })],
      undenied: denied !== undefined,
    };
  }

  /** The stream showed a question on the part: its queued answer, or it waits for the logged one. */
  questionSent(partId: string): UIMessageChunk[] {
    const answer = this.#queued.get(partId);
    if (answer?.kind === "response")
      return [{ type: "tool-output-available", toolCallId: partId, output: answer.value }];
    this.#questions.add(partId);
    return [];
  }

  /** The logged answer to a question this stream showed: the part's output (the call's result may replace it). */
  answered(partId: string, value: unknown): UIMessageChunk[] {
    if (!this.#questions.delete(partId)) return [];
    return [{ type: "tool-output-available", toolCallId: partId, output: value }];
  }
}

/** The call's part again as `input-available`: the AI SDK keeps its `approval` (id) and metadata. */
const restated = (partId: string, call: ToolCallPart): UIMessageChunk => ({
  type: "tool-input-available",
  toolCallId: partId,
  toolName: call.name,
  input: call.input,
});
