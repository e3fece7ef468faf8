// An MCP `tools/call` result as a Keelson tool output: text → text parts, images → image parts
// (the tool-result vocabulary carries them), audio and binary resources → a text note (no audio
// part exists), embedded text resources and resource links → text, `structuredContent` → its
// JSON as text (unless a text part already carries the same JSON, as the spec asks servers to
// do), `isError` → an error result. The text is held to the output cap the built-in tools use;
// images to a byte cap per result (an image past it becomes a note saying so, never logged).
import { capOutput } from "../builtin-tools/index.js";
import { canonicalJson, type JsonObject, type JsonValue } from "../json/index.js";
import type { ToolResultPart } from "../messages/index.js";
import type { ToolOutput } from "../tools/index.js";
import type { McpCallResult } from "./connection.js";

type McpContent = McpCallResult["content"][number];

/** Decoded bytes of images one result may carry (5 MiB: the Anthropic API's limit for one image). */
export const DEFAULT_MCP_IMAGE_CAP = 5 * 1024 * 1024;

/**
 * The output for `result`, its text capped at `cap` characters and its images at `imageCap`
 * decoded bytes in all (in order: an image that would pass the cap is replaced by a note);
 * `meta` names the server and tool.
 */
export function mcpToolOutput(
  result: McpCallResult,
  cap: number,
  meta: JsonObject,
  imageCap: number = DEFAULT_MCP_IMAGE_CAP,
): ToolOutput {
  const parts: ToolResultPart[] = capImages((result.content ?? []).map(toPart), imageCap);
  const structured = result.structuredContent;
  if (structured !== undefined && !parts.some((p) => p.type === "text" && sameJson(p.text, structured)))
    parts.push({ type: "text", text: JSON.stringify(structured) });
  if (parts.length === 0) parts.push({ type: "text", text: "(the tool returned no content)" });
  return { content: capParts(parts, cap), isError: result.isError === true, meta };
}

function toPart(item: McpContent): ToolResultPart {
  switch (item.type) {
    case "text":
      return { type: "text", text: item.text };
    case "image":
      return { type: "image", mediaType: item.mimeType, data: item.data };
    case "audio":
      return { type: "text", text: `[audio (${item.mimeType}, ${item.data.length} base64 characters) not shown]` };
    case "resource_link":
      return {
        type: "text",
        text: `[resource link: ${item.name} <${item.uri}>${item.description === undefined ? "" : ` — ${item.description}`}]`,
      };
    case "resource": {
      const resource = item.resource;
      if ("text" in resource && typeof resource.text === "string")
        return { type: "text", text: `[resource ${resource.uri}]\n${resource.text}` };
      return {
        type: "text",
        text: `[binary resource ${resource.uri}${resource.mimeType === undefined ? "" : ` (${resource.mimeType})`} not shown]`,
      };
    }
    default:
      return {
        type: "text",
        text: `[unsupported MCP content of type ${JSON.stringify((item as { type?: unknown }).type)}]`,
      };
  }
}

function sameJson(text: string, value: unknown): boolean {
  try {
    return canonicalJson(JSON.parse(text) as JsonValue) === canonicalJson(value as JsonValue);
  } catch {
    return false;
  }
}

/**
 * Text parts within `cap` characters: under the cap they are kept as they are; over it, the text
 * parts are joined (one per line) and cut by `capOutput` with its marker, images kept after it.
 */
function capParts(parts: readonly ToolResultPart[], cap: number): ToolResultPart[] {
  const texts = parts.flatMap((p) => (p.type === "text" ? [p.text] : []));
  if (texts.reduce((n, t) => n + t.length, 0) <= cap) return [...parts];
  return [{ type: "text", text: capOutput(texts.join("\n"), cap) }, ...parts.filter((p) => p.type !== "text")];
}

function capImages(parts: readonly ToolResultPart[], imageCap: number): ToolResultPart[] {
  let used = 0;
  return parts.map((part) => {
    if (part.type !== "image") return part;
    const bytes = base64Bytes(part.data);
    if (used + bytes <= imageCap) {
      used += bytes;
      return part;
    }
    return {
      type: "text",
      text: `[image (${part.mediaType}, ${bytes} bytes) not shown: over the ${imageCap}-byte limit for the images of one tool result${used === 0 ? "" : ` (${used} bytes already used)`}]`,
    };
  });
}

/** Decoded size of base64 `data` (without decoding it). */
function base64Bytes(data: string): number {
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  return Math.floor((data.length * 3) / 4) - padding;
}
