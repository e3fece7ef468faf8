// parseChatRequest: what a `useChat` POST asks for, checked at the boundary. The AI SDK's
// default transport sends `{ id, messages, trigger, messageId? }` with the whole conversation;
// Keelson's history is the log, so only the last message is read: it must be the user's, and its
// text parts and data-URL images become the prompt (`agent.stream(content)`). `regenerate` is
// refused: the log is append-only.
import type { UserContent } from "../messages/index.js";
import { ServeError } from "./types.js";

export interface ChatRequest {
  /** The chat's id (`useChat({ id })`): which session the app runs it in. */
  readonly chatId?: string;
  /** The new prompt: the last user message's text parts and images, in order. */
  readonly content: readonly UserContent[];
}

const DATA_URL = /^data:(image\/[A-Za-z0-9.+-]+);base64,([A-Za-z0-9+/]*={0,2})$/;

/** The chat id and prompt of a `useChat` request body (parsed JSON); `invalid-request` if it has none. */
export function parseChatRequest(body: unknown): ChatRequest {
  const request = object(body, "the request body");
  // The log is append-only: the old answer stays, so a "regenerated" one would be a second turn
  // on a repeated prompt, and a reload would show both. The app sends the prompt again instead.
  if (request.trigger === "regenerate-message")
    throw invalid("regenerating a message is not supported (the log keeps every answer): send the prompt again");
  const messages = request.messages;
  if (!Array.isArray(messages) || messages.length === 0) throw invalid("the request has no messages");
  const last = object(messages.at(-1), "the last message");
  if (last.role !== "user") throw invalid(`the last message is ${JSON.stringify(String(last.role))}, not the user's`);
  if (!Array.isArray(last.parts)) throw invalid("the last message has no parts");
  const content: UserContent[] = [];
  for (const [i, raw] of last.parts.entries()) {
    const part = object(raw, `part ${i} of the last message`);
    if (part.type === "text" && typeof part.text === "string") content.push({ type: "text", text: part.text });
    else if (part.type === "file") content.push(image(part, i));
    else if (part.type !== "step-start" && !String(part.type).startsWith("data-"))
      throw invalid(
        `part ${i} of the last message is ${JSON.stringify(String(part.type).slice(0, 40))}, not text or an image`,
      );
  }
  if (!content.some((part) => part.type === "image" || part.text.trim() !== ""))
    throw invalid("the last message has no text and no image");
  const chatId = typeof request.id === "string" ? request.id : undefined;
  return chatId === undefined ? { content } : { chatId, content };
}

function image(part: Record<string, unknown>, i: number): UserContent {
  const match = typeof part.url === "string" ? DATA_URL.exec(part.url) : null;
  if (match === null) throw invalid(`part ${i} of the last message is a file that is not a base64 data-URL image`);
  return { type: "image", mediaType: match[1]!, data: match[2]! };
}

function object(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw invalid(`${what} is not an object`);
  return value as Record<string, unknown>;
}

const invalid = (message: string): ServeError => new ServeError("invalid-request", message);
