// F15 (issue #20): with content capture off, a failed span's status message is its error code —
// never the error text, which holds what the model chose (a path in a tool's error) or what an
// MCP server printed (its stderr, in a connect error). With captureContent the text is kept.
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { describe, expect, test } from "vitest";
import { ScriptedProvider } from "../../src/llm/index.js";
import { createAgent } from "../../src/loop/index.js";
import { mcpTools } from "../../src/mcp/index.js";
import { otelTracing } from "../../src/otel/index.js";
import { defineTool } from "../../src/tools/index.js";

const PATH = "/home/alice/private/model-chosen-path.txt";
const STDERR = "server-stderr-text-4711";

const opener = defineTool({
  name: "open",
  description: "Opens a file.",
  input: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
  execute: (args) => {
    throw new Error(`cannot open ${String(args.path)}`);
  },
});

async function spansOf(
  captureContent: boolean,
): Promise<{ tool: ReadableSpan; failedTurn: ReadableSpan; all: ReadableSpan[] }> {
  const exporter = new InMemorySpanExporter();
  const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer("t");
  const toolAgent = createAgent({
    provider: new ScriptedProvider([{ toolCalls: [{ name: "open", arguments: { path: PATH } }] }, { text: "no" }]),
    model: "scripted:m1",
    tools: [opener],
    plugins: [otelTracing({ tracer, captureContent })],
  });
  await toolAgent.send("open it");
  await toolAgent.dispose();
  // An MCP server that prints to stderr and exits before initialize: the turn ends connect-failed.
  const mcp = mcpTools({
    servers: {
      bad: { command: process.execPath, args: ["-e", `process.stderr.write("${STDERR}\\n"); process.exit(3)`] },
    },
  });
  const mcpAgent = createAgent({
    provider: new ScriptedProvider([]),
    model: "scripted:m1",
    plugins: [mcp, otelTracing({ tracer, captureContent })],
  });
  expect((await mcpAgent.send("hi")).reason).toMatchObject({ kind: "error", code: "connect-failed" });
  await mcpAgent.dispose();
  await mcp.close(mcpAgent);
  const all = exporter.getFinishedSpans();
  const tool = all.find((s) => s.name === "execute_tool open")!;
  const failedTurn = all.find((s) => s.name === "invoke_agent" && s.attributes["error.type"] === "connect-failed")!;
  return { tool, failedTurn, all };
}

describe("span status without content capture", () => {
  test("is the error code only: no model-chosen path, no MCP stderr", async () => {
    const { tool, failedTurn, all } = await spansOf(false);
    expect(tool.status).toEqual({ code: 2, message: "threw" });
    expect(tool.attributes["error.type"]).toBe("threw");
    expect(failedTurn.status).toEqual({ code: 2, message: "connect-failed" });
    const everything = JSON.stringify(all.map((s) => [s.status, s.attributes, s.events]));
    expect(everything).not.toContain(PATH);
    expect(everything).not.toContain(STDERR);
  });

  test("with captureContent the error text is kept", async () => {
    const { tool, failedTurn } = await spansOf(true);
    expect(tool.status.message).toContain(PATH);
    expect(failedTurn.status.message).toContain(STDERR);
  });
});
