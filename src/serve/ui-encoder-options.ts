// The options of a UI message encoder (`UIMessageEncoder`, and the streams and responses over one):
// their types, their kinds as the option check reads them, and the encoder's own fields picked out
// of a larger options object.
import type { OptionKinds } from "./options-check.js";
import type { MessageMetadata } from "./ui-metadata.js";
import type { QueuedAnswer } from "./ui-queued-answers.js";

export interface UIEncoderOptions {
  /** The `start` chunk's message id; default `turn-<turn>` (what `uiMessagesFromLog` names it). */
  readonly messageId?: string;
  /** Send a transient `data-keelson` part per committed event (default true). */
  readonly keelsonData?: boolean;
  /**
   * The `error` chunk's text for a turn that ended `error` (given its reason) or an iteration
   * that threw (given the error). Default: the reason's code and message / the error's message.
   * Either way the text is cut to its first line and 300 characters. One that throws or returns
   * no string gets the default: the stream still sends its `error` and `finish` chunks.
   */
  readonly errorText?: (error: unknown) => string;
  /**
   * Metadata for the message, asked for each event (ui-metadata.ts): an object it returns goes out
   * as a `message-metadata` chunk, which the AI SDK merges into `message.metadata`. Pass the same
   * function to `uiMessagesFromLog` for a reload to show what committed events gave. A value that
   * is no JSON object, or a throw, ends the message as an iteration that throws does.
   */
  readonly messageMetadata?: MessageMetadata;
  /**
   * Answers the log does not hold yet — a fleet's queued decisions and answers
   * (`(await client.openTurns(id)).flatMap((t) => t.decision ?? [])`) — for a replay of a paused
   * message while its continuation waits for a worker: the requests they answer are sent
   * answered (ui-answered-requests.ts), not asked again. A malformed entry is `invalid-options`.
   */
  readonly queuedAnswers?: readonly QueuedAnswer[];
}

/** The options of `UIEncoderOptions`, with their kinds (`queuedAnswers` is checked as it is read). */
export const UI_ENCODER_OPTION_KINDS: OptionKinds = {
  messageId: "string",
  keelsonData: "boolean",
  errorText: "function",
  messageMetadata: "function",
  queuedAnswers: "checked",
};

/** The encoder's own fields of a larger options object (a stream's, a response's). */
export function encoderOptionsOf(options: UIEncoderOptions): UIEncoderOptions {
  const own: Record<string, unknown> = {};
  for (const key in UI_ENCODER_OPTION_KINDS) {
    const value = (options as Record<string, unknown>)[key];
    if (value !== undefined) own[key] = value;
  }
  return own as UIEncoderOptions;
}
