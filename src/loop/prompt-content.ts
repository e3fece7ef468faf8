// The door of every prompt an agent takes (`send`, `stream`, `steer`, `inject`, and the host's
// queue before it): a string is one text block, content parts are checked for their shape —
// and hold nothing else (a key no wire sends would be logged without the model ever seeing it:
// model-visible ⟺ logged) —, an image must be base64 of a type every wire takes, starting as
// that type's files do and within every provider's size (messages/prompt-image.ts), and a prompt
// with nothing in it — no image and no text but whitespace — is refused. Refused at
// the call, with `LoopError('invalid-prompt')` naming what was wrong, so nothing is logged for
// it (checked inside the turn instead, a bad prompt would end an error turn in the log, and an
// empty one would reach the model as nothing — on the Anthropic wire, a prefill of the last
// answer). The fleet's queue refuses the same empty prompts (fleet/turn-input.ts). A prompt that
// alone could never fit the model's context window (where the provider knows it) is refused too
// (`promptOverWindow`, `prompt-too-large`): logged, it would end that turn and every later one of
// the session `context-overflow`, since no compaction can shrink the newest prompt.
import { JsonError, previewJson, snapshotJson } from "../json/index.js";
import { overWindow, type Provider } from "../llm/core.js";
import { MessageShapeError, promptImageProblem, type UserContent, validateUserContent } from "../messages/index.js";
import { LoopError } from "./types.js";

/** The keys each kind of prompt part has: what the wires send of it, and nothing else. */
const PART_KEYS: Readonly<Record<UserContent["type"], readonly string[]>> = {
  text: ["type", "text"],
  image: ["type", "mediaType", "data"],
};

/**
 * `content` as content parts; for what no turn should log, `refuse`'s error (the host's own
 * `invalid-prompt`), by default `LoopError('invalid-prompt')`.
 */
export function promptContent(
  content: unknown,
  what = "the prompt",
  refuse: (message: string) => Error = (message) => new LoopError("invalid-prompt", message),
): readonly UserContent[] {
  const parts: unknown = typeof content === "string" ? [{ type: "text", text: content }] : content;
  if (!Array.isArray(parts)) throw refuse(`${what} must be a string or content parts, got ${previewJson(content)}`);
  let copy: readonly UserContent[];
  try {
    // A detached copy, as the log would take it: NaN, a BigInt, a Date, a cycle or a class
    // instance is refused here, not in an error turn; a caller's later change touches nothing.
    copy = snapshotJson(parts, "prompt") as unknown as readonly UserContent[];
    validateUserContent(copy, what);
  } catch (error) {
    if (error instanceof MessageShapeError) throw refuse(error.message);
    if (error instanceof JsonError) throw refuse(`${what} is not lossless JSON: ${error.message}`);
    throw error;
  }
  for (const [i, part] of copy.entries()) {
    const keys = PART_KEYS[part.type];
    const extra = Object.keys(part).find((key) => !keys.includes(key));
    if (extra !== undefined)
      throw refuse(
        `${what}: part ${i} has ${JSON.stringify(extra.slice(0, 40))}, which no ${part.type} part of a prompt has (only ${keys.join(", ")})`,
      );
    const problem = part.type === "image" ? promptImageProblem(part.mediaType, part.data) : undefined;
    if (problem !== undefined) throw refuse(`${what}: the image at part ${i} cannot be sent: ${problem}`);
  }
  if (!copy.some((part) => part.type === "image" || part.text.trim() !== ""))
    throw refuse(`${what} is empty: no text (other than whitespace) and no image`);
  return copy;
}

/** A prompt an agent takes (`promptContent`), refused (`LoopError('prompt-too-large')`) when it could never fit `agent.model`. */
export function agentPrompt(
  content: unknown,
  agent: { readonly provider: Pick<Provider, "contextWindow">; readonly model: string },
  what?: string,
): readonly UserContent[] {
  const parts = promptContent(content, what);
  const tooLarge = promptOverWindow(parts, agent.provider, agent.model, what);
  if (tooLarge !== undefined) throw new LoopError("prompt-too-large", tooLarge);
  return parts;
}

/**
 * Why `parts` could never be sent to `model` — their estimated tokens alone clearly over its
 * context window, as `provider.contextWindow` gives it — or undefined when they may fit (or the
 * provider does not say). The estimate counts text, as the request check does (llm/context-window.ts).
 */
export function promptOverWindow(
  parts: readonly UserContent[],
  provider: Pick<Provider, "contextWindow">,
  model: string,
  what = "the prompt",
): string | undefined {
  const window = provider.contextWindow?.(model);
  if (window === undefined) return undefined;
  // The parts' text as one (bytes/4 over the whole, not rounded up part by part).
  const text = parts.map((part) => (part.type === "text" ? part.text : "")).join("");
  const estimate = overWindow(text, window);
  if (estimate === undefined) return undefined;
  const n = (x: number): string => x.toLocaleString("en-US");
  return `${what} is about ${n(estimate)} tokens (estimated), far over the ${n(window)}-token context window of ${model}: it could never be sent, whatever the history; nothing was logged`;
}
