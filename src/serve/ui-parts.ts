// How logged content becomes UI message values — ids, tool inputs, tool outputs, error texts.
// The live encoder (ui-step.ts, ui-encoder.ts) and `uiMessagesFromLog` both use these, so a
// message streamed live and the same message rebuilt from the log agree.
import type { ImageBlock, ToolResultPart } from "../messages/index.js";
import { liveBlockId } from "../loop/turn-events.js";
import type { AskedQuestion } from "./ui-types.js";

/** What a question (a logged `input/request`, its turn event) asks, as its part's metadata says it. */
export const askedQuestion = (request: { readonly message: string; readonly schema: object }): AskedQuestion => ({
  message: request.message,
  // A logged question's schema is a JSON object: typed as the AI SDK types metadata (mutable arrays).
  schema: request.schema as AskedQuestion["schema"],
});

/** The assistant message of turn `turn` (what the stream's `start` chunk names). */
export const assistantMessageId = (turn: number): string => `turn-${turn}`;

/** A later assistant message of the same turn, after a steering message logged at `seq`. */
export const continuedMessageId = (turn: number, seq: number): string => `turn-${turn}-${seq}`;

/**
 * Whether a turn started with this `turn/start` trigger goes on in the message of the paused turn
 * before it: its continuation (`approval`: the answers to it) or its cancel (`cancel`: a turn that
 * only closes the calls it left waiting). Any other turn is a message of its own.
 */
export const continuesPausedTurn = (trigger: unknown): boolean => trigger === "approval" || trigger === "cancel";

/** A user message: the seq of its `user/message` (or `steering/message`, `prompt/blocked`). */
export const userMessageId = (seq: number): string => `user-${seq}`;

/**
 * A text or reasoning part's stream id: the loop's live id (`text_<turn>_<step>_<index>`), with
 * `-r<attempt>` once a provider call of the step has been retried (the client keeps the failed
 * attempt's parts; the retried ones must not collide with them).
 */
export function streamBlockId(
  kind: "text" | "reasoning",
  turn: number,
  step: number,
  index: number,
  attempt: number,
): string {
  const id = liveBlockId(kind, turn, step, index);
  return attempt === 0 ? id : `${id}-r${attempt}`;
}

/** A tool call's input: its arguments parsed as JSON, or the raw text when they are not JSON. */
export function toolInput(argumentsText: string): unknown {
  try {
    return JSON.parse(argumentsText) as unknown;
  } catch {
    return argumentsText;
  }
}

/** An image as a data URL (`data:<mediaType>;base64,<data>`). */
export const imageDataUrl = (image: ImageBlock): string => `data:${image.mediaType};base64,${image.data}`;

/** A structured tool output: the result's parts in order, images as data URLs. */
export interface ToolContentOutput {
  readonly content: readonly (
    | { readonly type: "text"; readonly text: string }
    | { readonly type: "image"; readonly mediaType: string; readonly url: string }
  )[];
}

/**
 * A tool result's output on the wire: its text parts joined with newlines when it is text only
 * (the usual case: a string), else `{ content: [...] }` with every part in order.
 */
export function toolOutput(content: readonly ToolResultPart[]): string | ToolContentOutput {
  if (content.every((part) => part.type === "text")) return content.map((part) => part.text).join("\n");
  return {
    content: content.map((part) =>
      part.type === "text"
        ? { type: "text", text: part.text }
        : { type: "image", mediaType: part.mediaType, url: imageDataUrl(part) },
    ),
  };
}

/** An error result's text: its text parts joined, else its error code. */
export function toolErrorText(content: readonly ToolResultPart[], code: string | undefined): string {
  const text = content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("\n");
  return text !== "" ? text : `tool error (${code ?? "unknown"})`;
}

/** Error results that say the call itself was bad (the UI's `tool-input-error`), not its run. */
export const isInputError = (code: string | undefined): boolean =>
  code === "invalid-arguments" || code === "unknown-tool";

/** The most characters an `error` chunk's text carries. */
export const MAX_ERROR_TEXT = 300;

/**
 * An error text fit for a client: its first line only (no stack, no multi-line diff), cut to
 * `MAX_ERROR_TEXT` characters.
 */
export function boundedErrorText(text: string): string {
  const line = text.split(/\r?\n|\r/, 1)[0]!.trim();
  const one = line === "" ? "error" : line;
  return one.length > MAX_ERROR_TEXT ? `${one.slice(0, MAX_ERROR_TEXT - 3)}...` : one;
}
