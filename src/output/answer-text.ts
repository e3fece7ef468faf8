// The text of an answer: the text parts of an assistant message, joined by newlines (reasoning
// and tool calls left out). One definition for the outcome's `text`, the live output check and
// `outputOf` over a stored log, so the three always read the same answer.
import type { AssistantContent } from "../messages/index.js";

export function answerText(content: readonly AssistantContent[]): string {
  let text: string | undefined; // every turn's outcome reads it: no intermediate arrays
  for (const part of content) if (part.type === "text") text = text === undefined ? part.text : `${text}\n${part.text}`;
  return text ?? "";
}
