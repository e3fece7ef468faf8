// Message metadata (the AI SDK's `message.metadata`: usage, model, timing — what an app shows beside
// an answer): an app's `messageMetadata({ event })` is asked for each turn event, live and on
// reload. The live stream sends each object it returns as a `message-metadata` chunk, which the
// AI SDK's reader merges into the message; `uiMessagesFromLog` merges what it returns for the
// logged events the same way, so a reloaded page shows the metadata the live one did when it is
// derived from committed events (those with a `seq`). Values go out as JSON, both ways.
import type { TurnEvent } from "../loop/index.js";
import { committedTurnEvent } from "../loop/turn-events.js";
import type { SessionEvent } from "../session/index.js";
import { ServeError } from "./types.js";
import type { UIMessage } from "./ui-types.js";
import { valueName } from "./value-name.js";

/** What an app adds to the assistant message for one turn event: an object to merge in, or nothing. */
export type MessageMetadata = (input: { readonly event: TurnEvent }) => Readonly<Record<string, unknown>> | undefined;

/** An object of metadata as JSON would carry it. */
export type MetadataObject = { readonly [key: string]: unknown };

/**
 * What `messageMetadata` returns for `event`, as JSON makes it (a copy: what the page gets);
 * undefined for nothing (undefined or null). Throws `ServeError('invalid-options')` for a value
 * that is no plain JSON object; what the callback throws, as it threw it.
 */
export function metadataFor(messageMetadata: MessageMetadata, event: TurnEvent): MetadataObject | undefined {
  const value: unknown = messageMetadata({ event });
  if (value === undefined || value === null) return undefined;
  let copy: unknown;
  try {
    copy = typeof value === "object" && !Array.isArray(value) ? JSON.parse(JSON.stringify(value)) : undefined;
  } catch {
    copy = undefined; // a cycle or a bigint: no JSON form
  }
  if (typeof copy !== "object" || copy === null || Array.isArray(copy))
    throw new ServeError(
      "invalid-options",
      `messageMetadata returned ${valueName(value)} for a ${event.type} event: it must return a JSON object or undefined`,
    );
  return copy as MetadataObject;
}

/** Keys a merge never writes (they would reach an object's prototype). */
const UNSAFE = new Set(["__proto__", "constructor", "prototype"]);

const isPlainObject = (value: unknown): value is MetadataObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * `extra` merged into `base` as the AI SDK's reader merges message metadata: objects key by key,
 * recursively; any other value (an array too) replaces; an undefined value changes nothing.
 */
export function mergeMetadata(base: MetadataObject | undefined, extra: MetadataObject): MetadataObject {
  if (base === undefined) return extra;
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(extra)) {
    if (UNSAFE.has(key) || value === undefined) continue;
    const before = out[key];
    out[key] = isPlainObject(value) && isPlainObject(before) ? mergeMetadata(before, value) : value;
  }
  return out;
}

/**
 * The reload's side (uiMessagesFromLog): a turn's metadata goes to the message its live stream
 * made — the turn's first assistant message, or the paused turn's for a continuation — held until
 * that message exists (the prompt comes before the first step). Events outside a turn add nothing.
 */
export class TurnMetadata {
  readonly #messageMetadata: MessageMetadata;
  #inTurn = false;
  #target: UIMessage | undefined;
  #held: MetadataObject | undefined;

  constructor(messageMetadata: MessageMetadata) {
    this.#messageMetadata = messageMetadata;
  }

  /** After the walk of `event`; `assistant` is the message the walk has open (if any). */
  add(event: SessionEvent, assistant: UIMessage | undefined): void {
    if (event.type === "turn/start") {
      this.#inTurn = true;
      this.#target = assistant; // a continuation goes on in the paused turn's message
      this.#held = undefined;
    }
    if (!this.#inTurn) return;
    if (this.#target === undefined && assistant !== undefined) {
      this.#target = assistant;
      if (this.#held !== undefined) this.#merge(this.#held);
      this.#held = undefined;
    }
    const extra = metadataFor(this.#messageMetadata, committedTurnEvent(event));
    if (extra !== undefined) {
      if (this.#target === undefined) this.#held = mergeMetadata(this.#held, extra);
      else this.#merge(extra);
    }
    if (event.type === "turn/end") {
      this.#inTurn = false;
      this.#target = undefined;
      this.#held = undefined;
    }
  }

  #merge(extra: MetadataObject): void {
    const message = this.#target as { metadata?: MetadataObject };
    message.metadata = mergeMetadata(message.metadata, extra);
  }
}
