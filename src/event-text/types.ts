// The vocabulary of event text: what one logged event says to a person, in the two forms Keelson
// prints (the contract of `EVENT_LINES`, event-lines.ts).
import type { EventType, SessionEvent } from "../session/index.js";

/** What an event is, as a reader groups it (the inspector's timeline row kinds, less its own `instance`). */
export type EventKind =
  | "turn"
  | "turn-end"
  | "step"
  | "step-end"
  | "user"
  | "context"
  | "steering"
  | "blocked"
  | "assistant"
  | "tool-call"
  | "tool-result"
  | "approval-request"
  | "approval-decision"
  | "input-request"
  | "input-response"
  | "sampling-request"
  | "sampling-response"
  | "header"
  | "header-delta"
  | "retry"
  | "compact-start"
  | "compact-summary"
  | "compact-end";

/**
 * How much to say. `full`: everything, for a terminal transcript (`keelson show`): message text
 * whole, a snapshot's system, tools and session prefix under its line. `row`: one short line per
 * event (the inspector's timeline): previews, and the request a step sent.
 */
export type EventView =
  | { readonly form: "full" }
  | {
      readonly form: "row";
      /** A step's `step/start` seq → the 1-based index of the request it sent. */
      readonly requestOf: ReadonlyMap<number, number>;
    };

/** One event in words. */
export interface EventLine {
  readonly kind: EventKind;
  /** Nesting: 0 turn boundaries, 1 steps and compactions, 2 what happens inside them. */
  readonly depth: 0 | 1 | 2;
  readonly turn?: number;
  readonly step?: number;
  /** A retry, an error result, a turn that did not complete, a failed compaction, a blocked prompt. */
  readonly error?: true;
  /** The line; in the full form message text is whole, so it may hold newlines. */
  readonly text: string;
  /** The request this step sent (row form, `step/start` only). */
  readonly request?: number;
  /** Full form: lines that belong under the line (a header's system, tools, session prefix), nested two spaces a level. */
  readonly detail?: readonly string[];
}

/** Says one event of type `T`. Pure; never throws on an event a load accepted. */
export type EventLineOf<T extends EventType> = (event: SessionEvent<T>, view: EventView) => EventLine;
