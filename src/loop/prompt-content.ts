// The door of every prompt an agent takes (`send`, `stream`, `steer`, `inject`, and the host's
// queue before it): a string is one text block, content parts are checked for their shape, and
// a prompt with nothing in it — no image and no text but whitespace — is refused. Refused at
// the call, with `LoopError('invalid-prompt')` naming what was wrong, so nothing is logged for
// it (checked inside the turn instead, a bad prompt would end an error turn in the log, and an
// empty one would reach the model as nothing — on the Anthropic wire, a prefill of the last
// answer). The fleet's queue refuses the same empty prompts (fleet/turn-input.ts).
import { previewJson } from "../json/index.js";
import { MessageShapeError, type UserContent, validateUserContent } from "../messages/index.js";
import { LoopError } from "./types.js";

/** `content` as content parts, or `LoopError('invalid-prompt')` for what no turn should log. */
export function promptContent(content: unknown, what = "the prompt"): readonly UserContent[] {
  const parts: unknown = typeof content === "string" ? [{ type: "text", text: content }] : content;
  if (!Array.isArray(parts))
    throw new LoopError("invalid-prompt", `${what} must be a string or content parts, got ${previewJson(content)}`);
  try {
    validateUserContent(parts, what);
  } catch (error) {
    if (error instanceof MessageShapeError) throw new LoopError("invalid-prompt", error.message);
    throw error;
  }
  if (!parts.some((part) => part.type === "image" || part.text.trim() !== ""))
    throw new LoopError("invalid-prompt", `${what} is empty: no text (other than whitespace) and no image`);
  return parts;
}
