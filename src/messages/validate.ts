// Shape validation for content blocks and messages, used at every boundary that accepts them
// (session appends, loaded logs, composed session prefixes). Throws `MessageShapeError`.
import type { AssistantContent, Message, ToolResultPart, UserContent } from "./types.js";

export class MessageShapeError extends Error {
  override readonly name = "MessageShapeError";
  readonly code = "invalid-message";
  readonly path: string;
  readonly detail: string;
  constructor(path: string, detail: string) {
    super(`${detail} at ${path}`);
    this.path = path;
    this.detail = detail;
  }
}

type BlockKind = "text" | "reasoning" | "tool-call" | "image" | "tool-result";

const USER_KINDS: ReadonlySet<BlockKind> = new Set(["text", "image"]);
const ASSISTANT_KINDS: ReadonlySet<BlockKind> = new Set(["text", "reasoning", "tool-call"]);

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function requireString(obj: Record<string, unknown>, key: string, path: string): void {
  if (typeof obj[key] !== "string") throw new MessageShapeError(`${path}.${key}`, `expected a string, got ${typeName(obj[key])}`);
}

export function typeName(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  return typeof v;
}

function validateBlock(block: unknown, allowed: ReadonlySet<BlockKind>, path: string): void {
  if (!isRecord(block)) throw new MessageShapeError(path, `expected a content block object, got ${typeName(block)}`);
  const kind = block.type;
  if (typeof kind !== "string" || !allowed.has(kind as BlockKind)) {
    throw new MessageShapeError(`${path}.type`, `block type ${JSON.stringify(kind)} is not one of ${[...allowed].join(", ")}`);
  }
  switch (kind as BlockKind) {
    case "text":
      requireString(block, "text", path);
      return;
    case "reasoning":
      requireString(block, "text", path);
      if (block.signature !== undefined) requireString(block, "signature", path);
      if (block.redacted !== undefined && typeof block.redacted !== "boolean") {
        throw new MessageShapeError(`${path}.redacted`, "expected a boolean");
      }
      return;
    case "tool-call":
      requireString(block, "callId", path);
      requireString(block, "name", path);
      requireString(block, "arguments", path);
      return;
    case "image":
      requireString(block, "mediaType", path);
      requireString(block, "data", path);
      return;
    case "tool-result":
      requireString(block, "callId", path);
      if (typeof block.isError !== "boolean") throw new MessageShapeError(`${path}.isError`, "expected a boolean");
      validateToolResultContent(block.content, `${path}.content`);
      return;
  }
}

function validateBlocks(content: unknown, allowed: ReadonlySet<BlockKind>, path: string): void {
  if (!Array.isArray(content)) throw new MessageShapeError(path, `expected an array of content blocks, got ${typeName(content)}`);
  for (let i = 0; i < content.length; i++) validateBlock(content[i], allowed, `${path}[${i}]`);
}

/** Asserts user-side content: text and image blocks. */
export function validateUserContent(content: unknown, path = "$"): asserts content is UserContent[] {
  validateBlocks(content, USER_KINDS, path);
}

/** Asserts assistant content: text, reasoning and tool-call blocks. */
export function validateAssistantContent(content: unknown, path = "$"): asserts content is AssistantContent[] {
  validateBlocks(content, ASSISTANT_KINDS, path);
}

/** Asserts tool-result content: text and image blocks. */
export function validateToolResultContent(content: unknown, path = "$"): asserts content is ToolResultPart[] {
  validateBlocks(content, USER_KINDS, path);
}

/** Asserts a single message of any role. */
export function validateMessage(message: unknown, path = "$"): asserts message is Message {
  if (!isRecord(message)) throw new MessageShapeError(path, `expected a message object, got ${typeName(message)}`);
  switch (message.role) {
    case "user":
      validateUserContent(message.content, `${path}.content`);
      return;
    case "assistant":
      validateAssistantContent(message.content, `${path}.content`);
      return;
    case "tool": {
      const content = message.content;
      if (!Array.isArray(content) || content.length !== 1) {
        throw new MessageShapeError(`${path}.content`, "a tool message holds exactly one tool-result block");
      }
      validateBlock(content[0], new Set(["tool-result"]), `${path}.content[0]`);
      return;
    }
    default:
      throw new MessageShapeError(`${path}.role`, `role ${JSON.stringify(message.role)} is not user, assistant or tool`);
  }
}

/** Asserts a list of messages (e.g. a composed session prefix). */
export function validateMessages(messages: unknown, path = "$"): asserts messages is Message[] {
  if (!Array.isArray(messages)) throw new MessageShapeError(path, `expected an array of messages, got ${typeName(messages)}`);
  messages.forEach((m, i) => {
    validateMessage(m, `${path}[${i}]`);
  });
}
