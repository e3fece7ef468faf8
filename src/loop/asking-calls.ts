// Which call asks a question asked before it runs: an `input-request` turn event without `callId`
// gets that call's tool-call block (`call: { name, arguments }`) from the latest answer
// (`assistant-message`) before it in the log — the step that asks, or the paused step whose held
// calls a continuation runs. A stream that starts after that answer (a continuation's) can then
// still say which part asks. AskingCalls serves a reader of the log's events: it keeps the latest
// answer it passed (by seq: a fleet follower places events out of order) and reads back for it
// only once, when the reader started after it — so a step of many questions costs one lookup
// each, never a scan per question. A reader without the log at hand (a fleet follower: the log is
// a query away) reads back itself, asynchronously, when `wantsAnswer` says so, and hands the
// answer it found to `answerFound`.
import type { SessionEvent } from "../session/index.js";
import type { CommittedTurnEvent } from "./turn-events.js";

type InputRequestEvent = Extract<CommittedTurnEvent, { type: "input-request" }>;
type AnswerContent = Extract<CommittedTurnEvent, { type: "assistant-message" }>["content"];

/** `event` with the tool-call block of `content` whose id it asks for, when `content` has one. */
export function withCallFrom(event: InputRequestEvent, content: AnswerContent): InputRequestEvent {
  for (const block of content)
    if (block.type === "tool-call" && block.callId === event.id)
      return { ...event, call: { name: block.name, arguments: block.arguments } };
  return event;
}

export class AskingCalls {
  readonly #eventAt: ((seq: number) => SessionEvent | undefined) | undefined;
  /** The latest answer passed (or read back for), undefined before one, and its seq. */
  #answer: AnswerContent | undefined;
  #answerSeq = -1;
  /** Whether the log before the first event passed was read back for its latest answer. */
  #readBack = false;

  /**
   * `eventAt`: the log by seq, read back once at most (it may answer undefined where the log is not
   * at hand). Without it, the reader reads back itself (`wantsAnswer`, `answerFound`).
   */
  constructor(eventAt?: (seq: number) => SessionEvent | undefined) {
    this.#eventAt = eventAt;
  }

  /** `event` with its asking call where it is a question asked before its call runs (and an answer before it is known). */
  pass(event: CommittedTurnEvent): CommittedTurnEvent {
    if (event.type === "assistant-message") {
      if (event.seq > this.#answerSeq) this.#keep(event.seq, event.content);
      this.#readBack = true; // anything before is older than this answer
      return event;
    }
    if (!asksBeforeItsCall(event)) return event;
    if (!this.#readBack && this.#eventAt !== undefined) {
      this.#readBack = true;
      this.#readBackFrom(event.seq);
    }
    return this.#answer === undefined || this.#answerSeq > event.seq ? event : withCallFrom(event, this.#answer);
  }

  /**
   * Whether `event` is a question asked before its call runs whose answer is not known and was
   * not read back for: a reader without `eventAt` looks for the latest answer before it, hands it
   * to `answerFound`, and passes the event again.
   */
  wantsAnswer(event: CommittedTurnEvent): boolean {
    return !this.#readBack && asksBeforeItsCall(event) && (this.#answer === undefined || this.#answerSeq > event.seq);
  }

  /** What the reader's own read back found: the latest answer before the question (undefined: none in the log). */
  answerFound(answer: { readonly seq: number; readonly content: AnswerContent } | undefined): void {
    this.#readBack = true;
    if (answer !== undefined && answer.seq > this.#answerSeq) this.#keep(answer.seq, answer.content);
  }

  #keep(seq: number, content: AnswerContent): void {
    this.#answerSeq = seq;
    this.#answer = content;
  }

  /** Reads back from `seq` to the latest answer before it, where the log is at hand. */
  #readBackFrom(seq: number): void {
    for (let at = seq - 1; at > this.#answerSeq; at--) {
      const earlier = this.#eventAt?.(at);
      if (earlier === undefined) return;
      if (earlier.type === "assistant/message") {
        this.#keep(at, (earlier.data as { content: AnswerContent }).content);
        return;
      }
    }
  }
}

/** A question asked before its call runs (it names no `callId`), not yet given that call. */
const asksBeforeItsCall = (event: CommittedTurnEvent): event is InputRequestEvent =>
  event.type === "input-request" && event.callId === undefined && event.call === undefined;
