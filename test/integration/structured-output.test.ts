// Structured output end to end (issue #23 §3): a real agent, the official SDKs, the emulator's
// Messages, Chat Completions and Responses APIs. Per flavor the request carries the provider's
// native mechanism (Anthropic output_config.format, OpenAI response_format json_schema, Responses
// text.format json_schema, DeepSeek JSON mode with the schema instruction), the rule-based model answers JSON that validates into a typed
// `outcome.output`, a repair round goes over the wire, every wire request is the one the log
// reconstructs, and a turn without output puts no trace of the feature on the wire.
import { describe, expect, test } from "vitest";
import { z } from "zod";
import { ScriptedEmulatorModel } from "../../src/emulator/index.js";
import type { JsonObject } from "../../src/json/index.js";
import { jsonSchema } from "../../src/tools/index.js";
import { agentOn, apiOf, bodyOf, emulator, expectHealthy, type Flavor } from "./support.js";

const plan = z.object({
  summary: z.string(),
  steps: z.array(z.object({ title: z.string(), minutes: z.number().int() })),
  risk: z.enum(["low", "high"]),
});
const FLAVORS: readonly Flavor[] = ["anthropic", "openai", "deepseek", "responses"];

/** The native structured-output field of a recorded wire body. */
function nativeField(flavor: Flavor, body: Record<string, unknown>): unknown {
  return flavor === "anthropic" ? body.output_config : flavor === "responses" ? body.text : body.response_format;
}

describe.each(FLAVORS)("%s adapter: structured output against the emulator", (flavor) => {
  test("the rule-based model's answer validates into a typed outcome.output; the wire carries the native field", async () => {
    const server = await emulator({ keepRawBodies: true });
    const agent = agentOn(flavor, server);
    const outcome = await agent.send("Plan the release.", { output: plan });
    expect(outcome.reason).toEqual({ kind: "completed" });
    const typed: { summary: string; steps: { title: string; minutes: number }[]; risk: "low" | "high" } | undefined =
      outcome.output;
    expect(typed).toEqual({
      summary: "Understood: Plan the release.",
      steps: [{ title: "example", minutes: 0 }],
      risk: "low",
    });
    const body = bodyOf(server.requests[0]!);
    if (flavor === "anthropic")
      expect(nativeField(flavor, body)).toMatchObject({ format: { type: "json_schema", schema: { type: "object" } } });
    else if (flavor === "openai")
      expect(nativeField(flavor, body)).toMatchObject({
        type: "json_schema",
        json_schema: { name: "output", strict: true },
      });
    else if (flavor === "responses")
      expect(nativeField(flavor, body)).toMatchObject({
        format: { type: "json_schema", name: "output", strict: true },
      });
    else {
      expect(nativeField(flavor, body)).toEqual({ type: "json_object" });
      expect(server.requests[0]!.request!.system).toContain("Answer with a single JSON object");
    }
    expect(server.requests[0]!.request!.output?.schema).toBeDefined();
    expectHealthy(agent, server, apiOf(flavor), { jsonMode: flavor === "deepseek" });
  });

  test("an invalid first answer is repaired over the wire; the repair prompt is the request's last message", async () => {
    const model = new ScriptedEmulatorModel([
      { text: '{"summary":"x"}' },
      { text: '{"summary":"x","steps":[],"risk":"low"}' },
    ]);
    const server = await emulator({ model });
    const agent = agentOn(flavor, server);
    const outcome = await agent.send("Plan the release.", { output: plan });
    expect(outcome.output).toEqual({ summary: "x", steps: [], risk: "low" });
    const repair = model.requests[1]!.messages.at(-1)!;
    expect(repair.role).toBe("user");
    expect(repair.content[0]).toMatchObject({ type: "text", text: expect.stringContaining("- steps: Invalid input") });
    expect(model.requests[1]!.output).toEqual(model.requests[0]!.output);
    expectHealthy(agent, server, apiOf(flavor), { jsonMode: flavor === "deepseek" });
  });

  test("a final failure ends invalid-output with the issues; the log still verifies", async () => {
    const server = await emulator({ model: new ScriptedEmulatorModel([{ text: "nope" }, { text: "{}" }]) });
    const agent = agentOn(flavor, server);
    const outcome = await agent.send("Plan the release.", { output: plan });
    expect(outcome.reason).toMatchObject({ kind: "error", code: "invalid-output" });
    expect(outcome.issues).toEqual([
      "summary: Invalid input: expected string, received undefined",
      "steps: Invalid input: expected array, received undefined",
      'risk: Invalid option: expected one of "low"|"high"',
    ]);
    expectHealthy(agent, server, apiOf(flavor), { jsonMode: flavor === "deepseek" });
  });

  test("a turn without output puts no trace of the feature on the wire, also right after one with output", async () => {
    const server = await emulator({ keepRawBodies: true });
    const agent = agentOn(flavor, server);
    await agent.send("Plan the release.", { output: plan });
    await agent.send("Thanks.");
    const raw = server.requests[1]!.rawBody!;
    for (const trace of ["output_config", "response_format", '"text":{"format"', "Answer with a single JSON object"])
      expect(raw).not.toContain(trace);
    expectHealthy(agent, server, apiOf(flavor), { jsonMode: flavor === "deepseek" });
  });
});

test("a JSON Schema output with a tool step first: the emulator calls the tool, then answers the schema", async () => {
  const server = await emulator();
  const agent = agentOn("openai", server);
  const schema: JsonObject = {
    type: "object",
    properties: { file: { type: "string" }, lines: { type: "integer", minimum: 1 } },
    required: ["file", "lines"],
  };
  const outcome = await agent.send("Read notes.txt and report its size.", {
    output: jsonSchema<{ file: string; lines: number }>(schema),
  });
  expect(outcome.output).toEqual({ file: 'read returned: "contents of notes.txt: forty-two lines"', lines: 1 });
  expect(server.requests).toHaveLength(2);
  expect(bodyOf(server.requests[1]!).response_format).toMatchObject({ json_schema: { strict: true } });
  expectHealthy(agent, server, "openai");
});
