// MCP resources as tools: a server that declares the `resources` capability gets two more tools,
// `mcp__<server>__list_resources` (one page of `resources/list`: name, URI, type, description)
// and `mcp__<server>__read_resource` (`resources/read` of one URI; text contents become text,
// binary ones a note), registered, logged and gated like the server's own tools. The model
// decides what to read; what it read is a logged tool result like any other.
import type { McpCallResult, McpConnection, McpTool } from "./connection.js";

/** `_meta` key that marks Keelson's resource tools among a server's tools. */
export const RESOURCE_TOOL_MARK = "keelson/resources";

export type ResourceToolKind = "list" | "read";

/** The two resource tools of a server that offers resources. */
export function resourceTools(): McpTool[] {
  return [
    {
      name: "list_resources",
      description:
        "List the resources (files, documents, data) this MCP server offers: name, URI, type and description. Pass `cursor` to get the next page.",
      inputSchema: {
        type: "object",
        properties: { cursor: { type: "string", description: "the nextCursor of the previous page" } },
      },
      _meta: { [RESOURCE_TOOL_MARK]: "list" },
    },
    {
      name: "read_resource",
      description: "Read one resource this MCP server offers, by its URI (from list_resources).",
      inputSchema: { type: "object", properties: { uri: { type: "string" } }, required: ["uri"] },
      _meta: { [RESOURCE_TOOL_MARK]: "read" },
    },
  ];
}

/** Which resource tool `tool` is, if it is one. */
export function resourceToolKind(tool: McpTool): ResourceToolKind | undefined {
  const kind = (tool._meta as Record<string, unknown> | undefined)?.[RESOURCE_TOOL_MARK];
  return kind === "list" || kind === "read" ? kind : undefined;
}

interface ListedResource {
  readonly uri: string;
  readonly name: string;
  readonly title?: string | undefined;
  readonly mimeType?: string | undefined;
  readonly description?: string | undefined;
}

/** One page of `resources/list` as a tool result: a line per resource, then the next cursor. */
export function resourceListResult(page: {
  readonly resources: readonly ListedResource[];
  readonly nextCursor?: string | undefined;
}): McpCallResult {
  const lines = page.resources.map(
    (r) =>
      `- ${r.title ?? r.name} <${r.uri}>${r.mimeType === undefined ? "" : ` (${r.mimeType})`}${r.description === undefined ? "" : ` — ${r.description}`}`,
  );
  if (lines.length === 0) lines.push("(the server lists no resources)");
  if (page.nextCursor !== undefined)
    lines.push(`more: call list_resources with cursor ${JSON.stringify(page.nextCursor)}`);
  return { content: [{ type: "text", text: lines.join("\n") }] };
}

/** A `resources/read` answer as a tool result: each content as an embedded resource. */
export function resourceReadResult(answer: { readonly contents: readonly Record<string, unknown>[] }): McpCallResult {
  return {
    content: answer.contents.map(
      (resource) => ({ type: "resource", resource }) as unknown as McpCallResult["content"][number],
    ),
  };
}

/** True when the server declared the `resources` capability (Keelson then adds its resource tools). */
export function offersResources(connection: McpConnection): boolean {
  return connection.serverCapabilities?.resources !== undefined;
}

/** One page of `resources/list`, or `resources/read` of `uri`, as a tool result. */
export async function resourceRequest(
  connection: McpConnection,
  request: { readonly list: string | undefined } | { readonly read: string },
  signal: AbortSignal,
): Promise<McpCallResult> {
  const options = { signal, timeout: 2_147_483_647 }; // the tool pipeline's timeout governs
  if ("read" in request)
    return resourceReadResult(
      await connection.request(
        "resources/read",
        "connect-failed",
        (c) => c.readResource({ uri: request.read }, options),
        signal,
      ),
    );
  const cursor = request.list;
  return resourceListResult(
    await connection.request(
      "resources/list",
      "connect-failed",
      (c) => c.listResources(cursor === undefined ? {} : { cursor }, options),
      signal,
    ),
  );
}
