// The Keelson-based client the MCP conformance suite (`@modelcontextprotocol/conformance`, client
// mode) drives: `keelson-client.ts <server-url>`, the scenario in MCP_CONFORMANCE_SCENARIO and its
// data in MCP_CONFORMANCE_CONTEXT. It is an ordinary agent: the `mcpTools` plugin connects the
// server (OAuth through Keelson's provider with an in-memory store; the "browser" follows the
// authorization server's approving redirect), and a scripted model calls every tool the server
// offers in one step, then answers. Questions a tool asks (elicitation) are answered by the
// agent's `answerer`: accept with the schema's defaults. Exit 0 when the turn completed with no
// error result; else 1, the reason on stderr.
import { ScriptedProvider } from "../../../src/llm/index.js";
import { createAgent } from "../../../src/loop/index.js";
import type { JsonValue } from "../../../src/json/index.js";
import { type McpHttpServer, memoryAuthStore, mcpTools } from "../../../src/mcp/index.js";

const url = process.argv[2];
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? "";
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? "{}") as Record<string, string | undefined>;
if (url === undefined) {
  process.stderr.write("usage: keelson-client <server-url>\n");
  process.exit(2);
}

/** The authorization server approves at once: its redirect carries the code (a browser's job). */
async function followRedirect(authorization: URL): Promise<string> {
  const response = await fetch(authorization, { redirect: "manual" });
  const location = response.headers.get("location");
  const code = location === null ? null : new URL(location).searchParams.get("code");
  if (code === null) throw new Error(`no authorization code in the redirect from ${authorization.origin}`);
  return code;
}

/** Arguments the scripted model passes to the tools the conformance servers offer. */
const ARGUMENTS: Record<string, object> = { add_numbers: { a: 2, b: 3 } };

async function server(): Promise<McpHttpServer> {
  if (scenario === "auth/client-credentials-basic" || scenario === "auth/client-credentials-jwt") {
    // The library's `authProvider` option: the SDK's own client-credentials providers.
    const { ClientCredentialsProvider, PrivateKeyJwtProvider } = await import(
      "@modelcontextprotocol/sdk/client/auth-extensions.js"
    );
    const authProvider =
      scenario === "auth/client-credentials-basic"
        ? new ClientCredentialsProvider({ clientId: context.client_id!, clientSecret: context.client_secret! })
        : new PrivateKeyJwtProvider({
            clientId: context.client_id!,
            privateKey: context.private_key_pem!,
            algorithm: context.signing_algorithm ?? "ES256",
          });
    return { url: url!, authProvider };
  }
  const oauth =
    scenario === "auth/pre-registration"
      ? { clientId: context.client_id!, clientSecret: context.client_secret! }
      : { clientMetadataUrl: "https://conformance-test.local/client-metadata.json" };
  return { url: url!, oauth };
}

const plugin = mcpTools({
  servers: { conformance: await server() },
  permissions: { mode: "allow" },
  initTimeoutMs: 60_000,
  auth: { store: memoryAuthStore(), authorize: followRedirect, clientName: "keelson-conformance" },
  onNotice: (text) => process.stderr.write(`notice: ${text}\n`),
});
const provider = new ScriptedProvider([], {
  fallback: (request) => {
    if (request.messages.at(-1)?.role === "tool") return { text: "done" };
    const tools = (request.tools ?? []).filter((t) => t.name.startsWith("mcp__"));
    return {
      toolCalls: tools.map((t) => ({
        name: t.name,
        arguments: ARGUMENTS[t.name.replace(/^mcp__conformance__/, "")] ?? {},
      })),
    };
  },
});
const agent = createAgent({
  provider,
  model: "scripted:conformance",
  plugins: [plugin],
  answerer: async (request) => ({ value: answerOf(request.schema), by: "conformance" }),
});

/**
 * Accepts an elicitation (its answer schema is MCP's ElicitResult, the server's schema as
 * `content`) with no field given: the SDK fills in the server's defaults (SEP-1034).
 */
function answerOf(_schema: unknown): JsonValue {
  return { action: "accept", content: {} };
}

const started = Date.now();
const trace = (what: string): void => {
  process.stderr.write(`keelson-client: ${what} after ${Date.now() - started} ms\n`);
};
const outcome = await agent.send(`conformance scenario ${scenario}`);
trace(`turn ended ${outcome.reason.kind}`);
const errors = agent.session.events.filter((e) => e.type === "tool/result" && (e.data as { isError: boolean }).isError);
await agent.dispose();
trace("disposed");
await plugin.close(agent);
trace("servers closed");
if (outcome.reason.kind !== "completed" || errors.length > 0) {
  process.stderr.write(
    `keelson-client: ${JSON.stringify(outcome.reason)}${errors.map((e) => `\n${JSON.stringify(e.data)}`).join("")}\n`,
  );
  process.exit(1);
}
process.exit(0);
