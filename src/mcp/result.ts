// An MCP `tools/call` result as a Keelson tool output: text → text parts, images → image parts
// (the tool-result vocabulary carries them), audio and binary resources → a text note (no audio
// part exists), embedded text resources and resource links → text, `structuredContent` → its
// JSON as text (unless a text part already carries the same JSON, as the spec asks servers to
// do), `isError` → an error result. The text is held to the output cap the built-in tools use.
import { capOutput } from "../builtin-tools/index.js";
import { canonicalJson, type JsonObject, type JsonValue } from "../json/index.js";
import type { ToolResultPart } from "../messages/index.js";
import type { ToolOutput } from "../tools/index.js";
import type { McpCallResult } from "./connection.js";

type McpContent = McpCallResult["content"][number];

/** The output for `result`, its text capped at `cap` characters; `meta` names the server and tool. */
export function mcpToolOutput(result: McpCallResult, cap: number, meta: JsonObject): ToolOutput {
  const parts: ToolResultPart[] = (result.content ?? []).map(toPart);
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
