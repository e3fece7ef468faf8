// Shape validation for content blocks and messages, used at every boundary that accepts them
// (session appends, loaded logs, composed session prefixes). Throws `MessageShapeError`.
import { previewJson } from "../json/index.js";
import type { AssistantContent, Message, ToolResultPart, UserContent } from "./types.js";
import { KeelsonError } from "../errors/index.js";

export class MessageShapeError extends KeelsonError<"invalid-message"> {
  readonly path: string;
  readonly detail: string;
  constructor(path: string, detail: string) {
    super("invalid-message", `${detail} at ${path}`);
    this.path = path;
    this.detail = detail;
  }
}

type BlockKind = "text" | "reasoning" | "tool-call" | "image" | "tool-result";

const USER_KINDS: ReadonlySet<BlockKind> = new Set(["text", "image"]);
const ASSISTANT_KINDS: ReadonlySet<BlockKind> = new Set(["text", "reasoning", "tool-call"]);
const TOOL_RESULT_KINDS: ReadonlySet<BlockKind> = new Set(["tool-result"]);

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

export function typeName(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  return typeof v;
}

/** A problem found inside a value: `at` is the path suffix below it (".text", "[2].type", ""). */
interface Problem {
  readonly at: string;
  readonly detail: string;
}

// The checks below build no path strings unless they fail: they run for every block of every
// event on every load.
function stringProblem(obj: Record<string, unknown>, key: string): Problem | undefined {
  return typeof obj[key] === "string"
    ? undefined
    : { at: `.${key}`, detail: `expected a string, got ${typeName(obj[key])}` };
}

function blockProblem(block: unknown, allowed: ReadonlySet<BlockKind>): Problem | undefined {
  if (!isRecord(block)) return { at: "", detail: `expected a content block object, got ${typeName(block)}` };
  const kind = block.type;
  if (typeof kind !== "string" || !allowed.has(kind as BlockKind)) {
    return { at: ".type", detail: `block type ${previewJson(kind)} is not one of ${[...allowed].join(", ")}` };
  }
  switch (kind as BlockKind) {
    case "text":
      return stringProblem(block, "text") ?? providerDataProblem(block);
    case "reasoning":
      return (
        stringProblem(block, "text") ??
        (block.signature === undefined ? undefined : stringProblem(block, "signature")) ??
        (block.redacted === undefined || typeof block.redacted === "boolean"
          ? undefined
          : { at: ".redacted", detail: "expected a boolean" }) ??
        providerDataProblem(block)
      );
    case "tool-call":
      return (
        stringProblem(block, "callId") ??
        stringProblem(block, "name") ??
        stringProblem(block, "arguments") ??
        providerDataProblem(block)
      );
    case "image":
      return stringProblem(block, "mediaType") ?? stringProblem(block, "data");
    case "tool-result": {
      const problem =
        stringProblem(block, "callId") ??
        (typeof block.isError === "boolean" ? undefined : { at: ".isError", detail: "expected a boolean" });
      if (problem !== undefined) return problem;
      const inner = blocksProblem(block.content, USER_KINDS);
      return inner === undefined ? undefined : { at: `.content${inner.at}`, detail: inner.detail };
    }
  }
}

/** `providerData`, when present, is an object naming its API. */
function providerDataProblem(block: Record<string, unknown>): Problem | undefined {
  const data = block.providerData;
  if (data === undefined) return undefined;
  if (!isRecord(data)) return { at: ".providerData", detail: `expected an object, got ${typeName(data)}` };
  return typeof data.api === "string" && data.api !== ""
    ? undefined
    : { at: ".providerData.api", detail: "expected a non-empty string naming the API" };
}

function blocksProblem(content: unknown, allowed: ReadonlySet<BlockKind>): Problem | undefined {
  if (!Array.isArray(content))
    return { at: "", detail: `expected an array of content blocks, got ${typeName(content)}` };
  for (let i = 0; i < content.length; i++) {
    const problem = blockProblem(content[i], allowed);
    if (problem !== undefined) return { at: `[${i}]${problem.at}`, detail: problem.detail };
  }
  return undefined;
}

function validateBlocks(content: unknown, allowed: ReadonlySet<BlockKind>, path: string): void {
  const problem = blocksProblem(content, allowed);
  if (problem !== undefined) throw new MessageShapeError(`${path}${problem.at}`, problem.detail);
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
      validateBlocks(content, TOOL_RESULT_KINDS, `${path}.content`);
      return;
    }
    default:
      throw new MessageShapeError(`${path}.role`, `role ${previewJson(message.role)} is not user, assistant or tool`);
  }
}

/** Asserts a list of messages (e.g. a composed session prefix). */
export function validateMessages(messages: unknown, path = "$"): asserts messages is Message[] {
  if (!Array.isArray(messages))
    throw new MessageShapeError(path, `expected an array of messages, got ${typeName(messages)}`);
  messages.forEach((m, i) => {
    validateMessage(m, `${path}[${i}]`);
  });
}
