// The package in a zod 3 project (zod 3.25): zod is the application's. A zod/v4 schema works
// (its JSON Schema keeps descriptions, defaults apply); a zod 3 schema gets a ToolError saying
// which zod is needed. Its own file so its install runs next to the other package tests'.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { runIn, useConsumerProject } from "./consumer.js";

describe("a zod 3 project (zod 3.25)", () => {
  const project = useConsumerProject(["zod@3.25.76"]);

  const agentWith = (zodImport: string): string => `import { createAgent, defineTool, ScriptedProvider } from "keelson";
import { z } from "${zodImport}";
const tool = defineTool({
  name: "read",
  description: "reads",
  input: z.object({ path: z.string().describe("the file to read"), lines: z.number().int().default(10) }),
  execute: ({ path, lines }) => path + ":" + lines,
});
try {
  const provider = new ScriptedProvider([{ toolCalls: [{ name: "read", arguments: { path: "a.txt" } }] }, { text: "done" }]);
  const agent = createAgent({ provider, model: "scripted:m", tools: [tool] });
  const outcome = await agent.send("go");
  const result = agent.session.events.find((e) => e.type === "tool/result");
  console.log(JSON.stringify({ reason: outcome.reason.kind, result: result.data.content, schema: provider.requests[0].tools[0].inputSchema }));
  await agent.dispose();
} catch (error) {
  console.log(JSON.stringify({ error: error.name, code: error.code, message: error.message }));
}
`;

  test("a zod/v4 schema works: its JSON Schema keeps the descriptions, defaults apply", async () => {
    await writeFile(join(project(), "v4.mjs"), agentWith("zod/v4"));
    const result = await runIn(project(), process.execPath, ["v4.mjs"]);
    expect(result.stderr).toBe("");
    const out = JSON.parse(result.stdout) as { reason: string; result: unknown; schema: unknown };
    expect(out.reason).toBe("completed");
    expect(out.result).toEqual([{ type: "text", text: "a.txt:10" }]);
    expect(out.schema).toMatchObject({
      type: "object",
      properties: { path: { type: "string", description: "the file to read" } },
      required: ["path"],
    });
  }, 60_000);

  test("a zod 3 schema is refused with a ToolError that says which zod is needed", async () => {
    await writeFile(join(project(), "v3.mjs"), agentWith("zod"));
    const result = await runIn(project(), process.execPath, ["v3.mjs"]);
    expect(result.stderr).toBe("");
    const out = JSON.parse(result.stdout) as { error: string; code: string; message: string };
    expect(out).toMatchObject({ error: "ToolError", code: "invalid-tool" });
    expect(out.message).toContain("zod 3 schema");
    expect(out.message).toContain('import { z } from "zod/v4"');
  }, 60_000);
});
