// MCP prompts: what a server offers (`prompts/list`, first page, only when it declares `prompts`)
// and one prompt's text (`prompts/get`): its messages' text — role-prefixed when there is more
// than one message or it is not the user's — with embedded text resources inlined. Chat's
// `/prompt` sends that text as the user's message.
import type { McpConnection } from "./connection.js";

/** A prompt a server offers: its name, description and arguments. */
export interface McpPromptInfo {
  readonly name: string;
  readonly description?: string;
  readonly arguments: readonly { readonly name: string; readonly required: boolean }[];
}

/** The server's prompts, or none when it declares no `prompts` capability. */
export async function listPrompts(connection: McpConnection, timeoutMs: number): Promise<McpPromptInfo[]> {
  if (connection.serverCapabilities?.prompts === undefined) return [];
  const { prompts } = await connection.request("prompts/list", "list-failed", (client) =>
    client.listPrompts({}, { timeout: timeoutMs }),
  );
  return prompts.map((p) => ({
    name: p.name,
    ...(p.description === undefined ? {} : { description: p.description }),
    arguments: (p.arguments ?? []).map((a) => ({ name: a.name, required: a.required === true })),
  }));
}

/** The text of prompt `name` with `args`. */
export async function promptText(
  connection: McpConnection,
  name: string,
  args: Record<string, string>,
  timeoutMs: number,
): Promise<string> {
  const { messages } = await connection.request(`prompts/get ${name}`, "connect-failed", (client) =>
    client.getPrompt({ name, arguments: args }, { timeout: timeoutMs }),
  );
  return messages
    .map((m) => {
      const c = m.content as { type: string; text?: string; resource?: { uri?: string; text?: string } };
      const text =
        c.type === "text"
          ? (c.text ?? "")
          : c.type === "resource"
            ? `[resource ${c.resource?.uri ?? "?"}]\n${c.resource?.text ?? ""}`
            : `[${c.type} not shown]`;
      return messages.length === 1 && m.role === "user" ? text : `${m.role}: ${text}`;
    })
    .join("\n\n");
}
