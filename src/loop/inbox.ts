// The agent's inbox: what users asked for, waiting to be claimed by a turn. Prompts wait for
// the next turn; steers and injects that arrive while a turn runs are taken at its next step
// boundary (never between a tool call and its result).
import type { UserContent } from "../messages/index.js";
import { sameOutput, type TurnOutput } from "./turn-output.js";
import type { PauseAnswer } from "./approval-decision.js";
import type { TurnOutcome } from "./types.js";

export interface QueuedPrompt {
  readonly content: readonly UserContent[];
  readonly source: string;
  readonly settle: Settle<TurnOutcome>;
  /** Called when the turn that claimed this prompt has logged its `turn/start`. */
  readonly onStart?: (turn: number, startSeq: number) => void;
  /** Structured output this prompt asks for (the agent's default already applied). */
  readonly output?: TurnOutput;
}
export interface QueuedSteer {
  readonly content: readonly UserContent[];
  readonly settle: Settle<TurnOutcome>;
}
export interface QueuedInject {
  readonly content: readonly UserContent[];
  readonly settle: Settle<void>;
}

export interface QueuedCompact {
  readonly settle: Settle<TurnOutcome>;
}

/**
 * A checked batch of decisions and answers to questions (one for `decide` / `respond`, several for
 * `streamAnswers`) waiting for its turn, which logs all of them or none; `logged` is set once it did.
 */
export interface QueuedDecision {
  /** In the order they were asked (their requests' seqs). */
  readonly answers: readonly PauseAnswer[];
  readonly settle: Settle<TurnOutcome>;
  /** Called when the turn that claimed this batch has logged its `turn/start` (`streamAnswers`). */
  readonly onStart?: (turn: number, startSeq: number) => void;
  logged?: boolean;
}

export interface Settle<T> {
  resolve(value: T): void;
  reject(error: unknown): void;
}

/** A promise and the `Settle` that settles it (what a queued item carries to its caller). */
export function deferred<T>(): { promise: Promise<T>; settle: Settle<T> } {
  let settle!: Settle<T>;
  const promise = new Promise<T>((resolve, reject) => {
    settle = { resolve, reject };
  });
  return { promise, settle };
}

/** What a turn claims when it starts. */
export interface Claim {
  readonly prompts: readonly QueuedPrompt[];
  readonly steers: readonly QueuedSteer[];
  readonly injects: readonly QueuedInject[];
  readonly compacts: readonly QueuedCompact[];
  /** Decisions: a claim holds either decisions only, or no decisions (`claimDecisions`). */
  readonly decisions: readonly QueuedDecision[];
}

/** What started the turn that runs `claim`, as its `turn/start` records it. */
export function triggerOf(claim: Claim): "approval" | "send" | "steer" | "compact" | "inject" | "cancel" {
  if (claim.decisions.length > 0) return "approval";
  if (claim.prompts.length > 0) return "send";
  if (claim.steers.length > 0) return "steer";
  if (claim.compacts.length > 0) return "compact";
  return claim.injects.length > 0 ? "inject" : "cancel";
}

export class Inbox {
  #prompts: QueuedPrompt[] = [];
  /**
   * Where the queued prompts are cut into turns, ascending: a queued prompt's stream cancelled
   * closes its turn to prompts queued after (`closeAfter`); the next claim takes prompts up to the
   * first cut only.
   */
  #cuts: number[] = [];
  #steers: QueuedSteer[] = [];
  #injects: QueuedInject[] = [];
  #compacts: QueuedCompact[] = [];
  #decisions: QueuedDecision[] = [];

  get empty(): boolean {
    return (
      this.#prompts.length + this.#steers.length + this.#injects.length + this.#compacts.length === 0 &&
      this.#decisions.length === 0
    );
  }
  get hasDecisions(): boolean {
    return this.#decisions.length > 0;
  }
  get hasSteers(): boolean {
    return this.#steers.length > 0;
  }

  prompt(item: QueuedPrompt): void {
    this.#prompts.push(item);
  }
  steer(item: QueuedSteer): void {
    this.#steers.push(item);
  }
  inject(item: QueuedInject): void {
    this.#injects.push(item);
  }
  compact(item: QueuedCompact): void {
    this.#compacts.push(item);
  }
  decide(item: QueuedDecision): void {
    this.#decisions.push(item);
  }

  /**
   * Everything queued but decisions, for a new turn — except prompts asking for another structured output than
   * the first prompt: they wait for the next turn (one turn, one output schema).
   */
  claimAll(): Claim {
    const first = this.#prompts[0];
    const limit = this.#cuts[0] ?? this.#prompts.length;
    const differs = this.#prompts.findIndex((p, i) => i >= limit || !sameOutput(p.output, first?.output));
    const prompts = differs < 0 ? this.#prompts : this.#prompts.slice(0, differs);
    const claim = { prompts, steers: this.#steers, injects: this.#injects, compacts: this.#compacts, decisions: [] };
    this.#prompts = differs < 0 ? [] : this.#prompts.slice(differs);
    this.#cuts = this.#cuts.map((cut) => cut - prompts.length).filter((cut) => cut > 0);
    this.#steers = [];
    this.#injects = [];
    this.#compacts = [];
    return claim;
  }

  /** The queued decisions only, for a turn of their own (other input waits for the next turn). */
  claimDecisions(): Claim {
    const claim = { prompts: [], steers: [], injects: [], compacts: [], decisions: this.#decisions };
    this.#decisions = [];
    return claim;
  }

  /** Steers and injects that arrived while the turn ran, for its next boundary. */
  takeBoundary(): { steers: QueuedSteer[]; injects: QueuedInject[] } {
    const out = { steers: this.#steers, injects: this.#injects };
    this.#steers = [];
    this.#injects = [];
    return out;
  }

  /** Injects only (at turn end, when no further boundary comes). */
  takeInjects(): QueuedInject[] {
    const out = this.#injects;
    this.#injects = [];
    return out;
  }

  /**
   * The stream of the prompt `settle` answers was cancelled while it waits: its turn will start
   * only to end aborted, so a prompt queued from now on waits for the turn after it instead of
   * joining that one (found from outside: it did, and was aborted with the other's reason).
   */
  closeAfter(settle: Settle<TurnOutcome>): void {
    const at = this.#prompts.length;
    if (this.#cuts.at(-1) !== at && this.#prompts.some((p) => p.settle === settle)) this.#cuts.push(at);
  }

  /** Empties the inbox, rejecting everything (dispose). */
  rejectAll(error: unknown): void {
    const items = [...this.#prompts, ...this.#steers, ...this.#injects, ...this.#compacts, ...this.#decisions];
    this.#prompts = [];
    this.#cuts = [];
    this.#steers = [];
    this.#injects = [];
    this.#compacts = [];
    this.#decisions = [];
    for (const item of items) item.settle.reject(error);
  }
}
