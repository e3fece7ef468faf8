// The message vocabulary shared by the session log (which derives messages) and, later, the
// providers (which serialize them). It depends on nothing, so neither of those layers has to
// import the other. Every message Keelson hands out is deep-frozen lossless JSON.

/**
 * What one provider API needs back with a block it produced, logged as the provider sent it and
 * opaque to Keelson: an OpenAI Responses reasoning item (with its encrypted content), the item
 * id of a Responses message or function call. `api` names the API that produced it (e.g.
 * `openai-responses`); an adapter for any other API drops it, so it never reaches the wrong
 * provider. Lossless JSON, like everything logged.
 */
export interface ProviderData {
  readonly api: string;
  readonly [key: string]: unknown;
}

export interface TextBlock {
  readonly type: "text";
  readonly text: string;
  /** Assistant text only: the producing API's item data (e.g. a Responses message id and phase). */
  readonly providerData?: ProviderData;
}

/**
 * Model reasoning. `signature` (Anthropic thinking) and `redacted` are kept for replay;
 * `providerData` holds another API's opaque reasoning (a Responses reasoning item).
 */
export interface ReasoningBlock {
  readonly type: "reasoning";
  readonly text: string;
  readonly signature?: string;
  readonly redacted?: boolean;
  readonly providerData?: ProviderData;
}

/** A tool call as the model produced it; `arguments` is the raw JSON string, unparsed. */
export interface ToolCallBlock {
  readonly type: "tool-call";
  readonly callId: string;
  readonly name: string;
  readonly arguments: string;
  /** The producing API's item data (e.g. a Responses function_call item id and its own call id). */
  readonly providerData?: ProviderData;
}

/** An image ready to send: base64 data plus its media type. */
export interface ImageBlock {
  readonly type: "image";
  readonly mediaType: string;
  readonly data: string;
}

export type ToolResultPart = TextBlock | ImageBlock;

export interface ToolResultBlock {
  readonly type: "tool-result";
  readonly callId: string;
  readonly content: readonly ToolResultPart[];
  readonly isError: boolean;
}

export type UserContent = TextBlock | ImageBlock;
export type AssistantContent = TextBlock | ReasoningBlock | ToolCallBlock;
export type ContentBlock = TextBlock | ReasoningBlock | ToolCallBlock | ImageBlock | ToolResultBlock;

export interface UserMessage {
  readonly role: "user";
  readonly content: readonly UserContent[];
}
export interface AssistantMessage {
  readonly role: "assistant";
  readonly content: readonly AssistantContent[];
}
/** One tool result. Adapters group consecutive tool messages as their wire format requires. */
export interface ToolMessage {
  readonly role: "tool";
  readonly content: readonly [ToolResultBlock];
}

export type Message = UserMessage | AssistantMessage | ToolMessage;

/**
 * Normalized usage in disjoint buckets (ARCHITECTURE.md §6): `inputTokens` is uncached input
 * only; total input = input + cacheRead + cacheWrite. `reasoningTokens` is informational (a part
 * of `outputTokens`).
 */
export interface Usage {
  readonly inputTokens: number;
  readonly cacheReadTokens: number;
  readonly cacheWriteTokens: number;
  readonly outputTokens: number;
  readonly reasoningTokens?: number;
}
export type Role = Message["role"];
