// The Keelson name of an MCP tool: `mcp__<server>__<tool>`, made to fit the registry's rule
// (`^[A-Za-z0-9_-]{1,64}$`): other characters become `_`, and a name over 64 characters keeps
// its first 55 and ends with `_` + 8 hex digits of the full name's hash, so long names stay
// distinct. Two tools that still map to one name are a collision the caller reports.
import { createHash } from "node:crypto";

const MAX = 64;

export const MCP_PREFIX = "mcp__";

/** `mcp__<server>__<tool>`, sanitized to `[A-Za-z0-9_-]` and at most 64 characters. */
export function mcpToolName(server: string, tool: string): string {
  const raw = `${MCP_PREFIX}${server}__${tool}`;
  const clean = raw.replace(/[^A-Za-z0-9_-]/g, "_");
  if (clean.length <= MAX) return clean;
  const hash = createHash("sha256").update(raw).digest("hex").slice(0, 8);
  return `${clean.slice(0, MAX - 9)}_${hash}`;
}

/** The prefix every tool of `server` starts with (for `--allow mcp__<server>`). */
export function mcpServerPrefix(server: string): string {
  return `${MCP_PREFIX}${server.replace(/[^A-Za-z0-9_-]/g, "_")}`;
}
