// Structured output in the loop (issue #23 §3) over a ScriptedProvider: the schema rides the
// step's call config (logged on the request header, so every request reconstructs exactly and
// the invariant holds), the final answer is validated into a typed `outcome.output`, a failed
// answer gets a logged repair step (one by default), a final failure ends the turn `error` /
// `invalid-output` with the issues, and a turn without output sends the very bytes it sent before.
import { describe, expect, expectTypeOf, test } from "vitest";
import { z } from "zod";
import { z as z3 } from "zod3";
import { z as z3v4 } from "zod3/v4";
import { type EpochHeader, foldRequestHeader } from "../../src/header/index.js";
import type { JsonObject } from "../../src/json/index.js";
import { toChatCompletionsParams } from "../../src/llm/openai/index.js";
import { anthropicRequestBody, ScriptedProvider } from "../../src/llm/index.js";
import { createAgent, LoopError, loggedPartOf, type TurnOutcome } from "../../src/loop/index.js";
import { MAX_ISSUES, OutputError, outputOf } from "../../src/output/index.js";
import { jsonSchema, type StandardSchema } from "../../src/tools/index.js";
import {
  callsTo,
  deferred,
  eventsOf,
  expectClosedLog,
  expectRequestsMatchLog,
  rig,
  textOf,
  tool,
} from "./loop-support.js";

const weather = z.object({ city: z.string(), celsius: z.number().int() });
const weatherJson: JsonObject = {
  type: "object",
  properties: { city: { type: "string" }, celsius: { type: "integer" } },
  required: ["city", "celsius"],
};
const oslo = '{"city":"Oslo","celsius":3}';

/** The repair prompts the turn logged. */
const repairs = (r: ReturnType<typeof rig>): string[] =>
  eventsOf(r.agent, "context/message")
    .filter((e) => e.data.source === "output-repair")
    .map((e) => e.data.content.map((p) => (p.type === "text" ? p.text : "")).join(""));

const header = (r: ReturnType<typeof rig>): EpochHeader => foldRequestHeader(r.agent.session.events)!;

describe("structured output: the request", () => {
  test("a zod schema rides the step's config as { name, schema } (closed objects) and is logged on the header", async () => {
    const r = rig({ replies: [{ text: oslo }] });
    const outcome = await r.agent.send("weather in Oslo?", { output: weather });
    expect(outcome.reason).toEqual({ kind: "completed" });
    const expected = {
      name: "output",
      schema: {
        type: "object",
        properties: {
          city: { type: "string" },
          celsius: { type: "integer", minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER },
        },
        required: ["city", "celsius"],
        additionalProperties: false,
      },
    };
    expect(r.dispatches[0]!.request.output).toEqual(expected);
    expect(header(r).config.output).toEqual(expected);
    expectRequestsMatchLog(r);
    expectClosedLog(r.agent); // verifyLog clean; the invariant (on under vitest) never fired
  });

  test("a JSON Schema object is sent as given, closed; a schema title that is a valid name names it", async () => {
    const r = rig({ replies: [{ text: oslo }] });
    await r.agent.send("weather?", { output: { ...weatherJson, title: "weather_report" } });
    expect(r.dispatches[0]!.request.output).toEqual({
      name: "weather_report",
      schema: { ...weatherJson, title: "weather_report", additionalProperties: false },
    });
    expectRequestsMatchLog(r);
  });

  test("a turn without output sends the bytes it sent before structured output existed — also right after a turn with output", async () => {
    const replies = [{ text: '{"ok":true}' }, { text: "b" }];
    const plain = rig({ replies, sessionId: "s-bytes" });
    await plain.agent.send("first");
    await plain.agent.send("second");
    const mixed = rig({ replies, sessionId: "s-bytes", repair: 3 });
    await mixed.agent.send("first", { output: z.object({ ok: z.boolean() }) });
    await mixed.agent.send("second");
    const bytes = (r: ReturnType<typeof rig>, i: number): string[] => {
      const request = r.dispatches[i]!.request;
      return [
        JSON.stringify(loggedPartOf(request)),
        JSON.stringify(anthropicRequestBody(request, { defaultMaxTokens: 1024 })),
        JSON.stringify(toChatCompletionsParams(request, wire)),
      ];
    };
    expect(plain.dispatches[0]!.request).not.toHaveProperty("output");
    expect(JSON.stringify(loggedPartOf(plain.dispatches[0]!.request))).toBe(
      '{"model":"scripted:test","messages":[{"role":"user","content":[{"type":"text","text":"first"}]}]}',
    );
    expect(mixed.dispatches[1]!.request).not.toHaveProperty("output");
    expect(bytes(mixed, 1)).toEqual(bytes(plain, 1));
    expectRequestsMatchLog(mixed);
  });

  test("after a turn with output, the next turn without it strips it from the config (a delta back to the plain config)", async () => {
    const r = rig({ replies: [{ text: oslo }, { text: "plain" }] });
    const plainConfig = structuredClone(await firstConfig());
    await r.agent.send("weather?", { output: weather });
    await r.agent.send("thanks");
    expect(r.dispatches[1]!.request).not.toHaveProperty("output");
    expect(header(r).config).toEqual(plainConfig);
    const deltas = eventsOf(r.agent, "request/header-delta");
    expect(deltas.at(-1)!.data.config).toEqual(plainConfig);
    expectRequestsMatchLog(r);
    expectClosedLog(r.agent);
  });

  test("the wire bodies carry it natively: Anthropic output_config.format, Chat Completions response_format", async () => {
    const r = rig({ replies: [{ text: oslo }] });
    await r.agent.send("weather?", { output: weather });
    const request = r.dispatches[0]!.request;
    const anthropic = anthropicRequestBody(request, { defaultMaxTokens: 1024 }) as unknown as Record<string, unknown>;
    expect(anthropic.output_config).toEqual({
      format: {
        type: "json_schema",
        schema: {
          type: "object",
          properties: {
            city: { type: "string" },
            // Anthropic refuses numeric bounds: they move into the description (as its SDK does).
            celsius: {
              type: "integer",
              description: `{minimum: ${Number.MIN_SAFE_INTEGER}, maximum: ${Number.MAX_SAFE_INTEGER}}`,
            },
          },
          additionalProperties: false,
          required: ["city", "celsius"],
        },
      },
    });
    expect(toChatCompletionsParams(request, wire).response_format).toEqual({
      type: "json_schema",
      json_schema: { name: "output", schema: request.output!.schema, strict: true },
    });
  });
});

const wire = {
  systemRole: "system",
  maxTokensField: "max_completion_tokens",
  promptCacheKey: true,
  reasoningReplay: "none",
  outputMode: "json_schema",
} as const;

async function firstConfig(): Promise<unknown> {
  const r = rig({ replies: [{ text: "x" }] });
  await r.agent.send("x");
  return header(r).config;
}

describe("structured output: the answer", () => {
  test("outcome.output is the validated value, typed by the schema, not enumerable", async () => {
    const r = rig({ replies: [{ text: oslo }] });
    const outcome = await r.agent.send("weather?", { output: weather });
    expectTypeOf(outcome.output).toEqualTypeOf<{ city: string; celsius: number } | undefined>();
    expect(outcome.output).toEqual({ city: "Oslo", celsius: 3 });
    expect(outcome.text).toBe(oslo);
    expect(Object.keys(outcome)).toEqual(["turn", "reason"]);
    expect(outcome.issues).toBeUndefined();
  });

  test("zod transforms apply: the output is the schema's output, not the raw JSON", async () => {
    const r = rig({ replies: [{ text: '{"when":"2026-01-02","tags":"a,b"}' }] });
    const schema = z.object({ when: z.string(), tags: z.string().transform((s) => s.split(",")) });
    const outcome = await r.agent.send("parse", { output: schema });
    expectTypeOf(outcome.output).toEqualTypeOf<{ when: string; tags: string[] } | undefined>();
    expect(outcome.output).toEqual({ when: "2026-01-02", tags: ["a", "b"] });
  });

  test("jsonSchema<T>() types the output and its validate refines it; a plain JSON Schema gives a JsonObject", async () => {
    const r = rig({ replies: [{ text: oslo }, { text: oslo }] });
    const typed = jsonSchema<{ city: string; celsius: number; hot: boolean }>(weatherJson, {
      validate: (value) => ({
        city: String(value.city),
        celsius: Number(value.celsius),
        hot: Number(value.celsius) > 25,
      }),
    });
    const first = await r.agent.send("weather?", { output: typed });
    expectTypeOf(first.output).toEqualTypeOf<{ city: string; celsius: number; hot: boolean } | undefined>();
    expect(first.output).toEqual({ city: "Oslo", celsius: 3, hot: false });
    const second = await r.agent.send("again", { output: weatherJson });
    expectTypeOf(second.output).toEqualTypeOf<JsonObject | undefined>();
    expect(second.output).toEqual({ city: "Oslo", celsius: 3 });
  });

  test("an older zod (zod/v4 of 3.25) converts asynchronously: the turn awaits its schema; one it refuses ends the turn error", async () => {
    const r = rig({ replies: [{ text: oslo }] });
    const older = z3v4.object({ city: z3v4.string(), celsius: z3v4.number() });
    const outcome = await r.agent.send("weather?", { output: older });
    expect(outcome.output).toEqual({ city: "Oslo", celsius: 3 });
    expect(r.dispatches[0]!.request.output?.schema).toMatchObject({
      required: ["city", "celsius"],
      additionalProperties: false,
    });
    const refused = await r.agent.send("when?", { output: z3v4.object({ at: z3v4.date() }) });
    expect(refused.reason).toMatchObject({ kind: "error", code: "invalid-schema" });
    expect(r.dispatches).toHaveLength(1);
    expectClosedLog(r.agent);
  });

  test("an answer in one Markdown code fence is accepted", async () => {
    const r = rig({ replies: [{ text: `\`\`\`json\n${oslo}\n\`\`\`` }] });
    expect((await r.agent.send("weather?", { output: weather })).output).toEqual({ city: "Oslo", celsius: 3 });
  });

  test("the answer after tool steps is the one checked", async () => {
    const r = rig({ replies: [callsTo("lookup"), { text: oslo }], tools: [tool("lookup")] });
    const outcome = await r.agent.send("weather?", { output: weather });
    expect(outcome.output).toEqual({ city: "Oslo", celsius: 3 });
    expect(r.dispatches.map((d) => d.request.output?.name)).toEqual(["output", "output"]);
    expectRequestsMatchLog(r);
    expectClosedLog(r.agent);
  });

  test("createAgent({ output }) is every turn's default, typed; a turn's own output wins", async () => {
    const r = rig({ replies: [{ text: oslo }, { text: '{"ok":true}' }], output: weather });
    const outcome = await r.agent.send("weather?");
    expect(outcome.output).toEqual({ city: "Oslo", celsius: 3 });
    const own = await r.agent.send("ok?", { output: z.object({ ok: z.boolean() }) });
    expectTypeOf(own.output).toEqualTypeOf<{ ok: boolean } | undefined>();
    expect(own.output).toEqual({ ok: true });
  });

  test("createAgent types the default output on send and stream; an agent without one gives unknown", async () => {
    const typed = createAgent({ provider: new ScriptedProvider([{ text: oslo }]), model: "m", output: weather });
    const outcome = await typed.send("weather?");
    expectTypeOf(outcome.output).toEqualTypeOf<{ city: string; celsius: number } | undefined>();
    expectTypeOf(typed.stream("again").outcome).toEqualTypeOf<
      Promise<TurnOutcome<{ city: string; celsius: number }>>
    >();
    expect(outcome.output).toEqual({ city: "Oslo", celsius: 3 });
    const plain = createAgent({ provider: new ScriptedProvider([{ text: "hi" }]), model: "m" });
    expectTypeOf((await plain.send("hi")).output).toEqualTypeOf<unknown>();
    await typed.dispose();
  });

  test("a max-tokens stop ends the turn max-tokens with no output and no check", async () => {
    const r = rig({ replies: [{ text: '{"city":"Os', finish: "max-tokens" }] });
    const outcome = await r.agent.send("weather?", { output: weather });
    expect(outcome.reason).toEqual({ kind: "max-tokens" });
    expect(outcome.output).toBeUndefined();
    expect(repairs(r)).toEqual([]);
  });
});

describe("structured output: repair", () => {
  test("an invalid answer gets one repair step by default: a logged context/message listing the issues, then a valid answer", async () => {
    const r = rig({ replies: [{ text: '{"city":1}' }, { text: oslo }] });
    const outcome = await r.agent.send("weather?", { output: weather });
    expect(outcome.reason).toEqual({ kind: "completed" });
    expect(outcome.output).toEqual({ city: "Oslo", celsius: 3 });
    expect(repairs(r)).toEqual([
      [
        "Your answer does not match the required output schema:",
        "- city: Invalid input: expected string, received number",
        "- celsius: Invalid input: expected number, received undefined",
        "Answer again with only the corrected JSON object.",
      ].join("\n"),
    ]);
    // The repair step's request ends with the repair prompt, right after the invalid answer.
    const messages = r.dispatches[1]!.request.messages;
    expect(messages.at(-2)).toEqual({ role: "assistant", content: [{ type: "text", text: '{"city":1}' }] });
    expect(textOf(messages.at(-1))).toContain("city: Invalid input");
    expect(eventsOf(r.agent, "step/start")).toHaveLength(2);
    expectRequestsMatchLog(r);
    expectClosedLog(r.agent);
  });

  test("text that is not JSON is an issue the repair prompt names", async () => {
    const r = rig({ replies: [{ text: "It is 3 degrees in Oslo." }, { text: oslo }] });
    await r.agent.send("weather?", { output: weather });
    expect(repairs(r)[0]).toMatch(/^Your answer does not match.*\n- \(root\): the answer is not valid JSON \(/);
  });

  test("a final failure ends the turn error / invalid-output with the issues on the outcome", async () => {
    const r = rig({ replies: [{ text: '{"city":1}' }, { text: '{"city":"Oslo"}' }] });
    const outcome = await r.agent.send("weather?", { output: weather });
    expect(outcome.reason).toMatchObject({ kind: "error", step: 2, code: "invalid-output" });
    expect(outcome.reason.kind === "error" && outcome.reason.message).toContain(
      "the answer does not match the output schema (after 1 repair round): celsius: Invalid input",
    );
    expect(outcome.issues).toEqual(["celsius: Invalid input: expected number, received undefined"]);
    expect(outcome.output).toBeUndefined();
    expect(Object.keys(outcome)).toEqual(["turn", "reason"]);
    expectClosedLog(r.agent);
  });

  test("the failure reaches agent/error as an OutputError carrying the issues", async () => {
    const r = rig({ replies: [{ text: "no" }], repair: 0 });
    const errors: unknown[] = [];
    r.agent.hooks.on("agent/error", ({ error }) => void errors.push(error));
    await r.agent.send("weather?", { output: weather });
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(OutputError);
    expect((errors[0] as OutputError).code).toBe("invalid-output");
    expect((errors[0] as OutputError).issues[0]).toMatch(/^\(root\): the answer is not valid JSON/);
  });

  test("repair: 0 fails at once (one request); repair: 2 allows two repair steps", async () => {
    const none = rig({ replies: [{ text: "{}" }] });
    expect((await none.agent.send("w", { output: weather, repair: 0 })).reason).toMatchObject({
      code: "invalid-output",
      step: 1,
    });
    expect(none.dispatches).toHaveLength(1);
    const two = rig({ replies: [{ text: "{}" }, { text: "{}" }, { text: oslo }] });
    const outcome = await two.agent.send("w", { output: weather, repair: 2 });
    expect(outcome.output).toEqual({ city: "Oslo", celsius: 3 });
    expect(repairs(two)).toHaveLength(2);
  });

  test("the repair prompt stays bounded for an answer failing in thousands of places", async () => {
    const many = JSON.stringify({ items: Array.from({ length: 5000 }, (_, i) => ({ id: `x${i}` })) });
    const schema = z.object({ items: z.array(z.object({ id: z.number() })) });
    const r = rig({ replies: [{ text: many }, { text: many }] });
    const outcome = await r.agent.send("list", { output: schema });
    const [prompt] = repairs(r);
    expect(prompt!.split("\n").filter((line) => line.startsWith("- "))).toHaveLength(MAX_ISSUES);
    expect(prompt).toContain(`… and ${5000 - MAX_ISSUES + 1} more issues`);
    expect(prompt!.length).toBeLessThan(8000);
    expect(outcome.issues).toHaveLength(MAX_ISSUES);
  });

  test("a cancel while an async validator runs ends the turn aborted and logs no repair prompt", async () => {
    const gate = deferred<void>();
    let started!: () => void;
    const validating = new Promise<void>((resolve) => {
      started = resolve;
    });
    const slow: StandardSchema<unknown, { n: number }> = {
      "~standard": {
        version: 1,
        vendor: "slow",
        jsonSchema: { input: () => ({ type: "object", properties: { n: { type: "number" } }, required: ["n"] }) },
        validate: async () => {
          started();
          await gate.promise;
          return { issues: [{ message: "never valid" }] };
        },
      },
    };
    const r = rig({ replies: [{ text: '{"n":1}' }] });
    const outcome = r.agent.send("n?", { output: slow });
    await validating;
    r.agent.cancel("stop");
    gate.resolve();
    expect((await outcome).reason).toEqual({ kind: "aborted", reason: "stop" });
    expect(repairs(r)).toEqual([]);
    expectClosedLog(r.agent);
  });

  test("a repair counts against maxSteps", async () => {
    const r = rig({ replies: [{ text: "{}" }, { text: oslo }], maxSteps: 1 });
    expect((await r.agent.send("w", { output: weather })).reason).toMatchObject({ code: "max-steps" });
  });
});

describe("structured output: turns and options", () => {
  test("prompts asking for different outputs do not share a turn; prompts asking for the same one do", async () => {
    const r = rig({ replies: [{ text: oslo }, { text: '{"ok":true}' }] });
    const ok = z.object({ ok: z.boolean() });
    const [a, b, c] = await Promise.all([
      r.agent.send("one", { output: weather }),
      r.agent.send("two", { output: weather }),
      r.agent.send("three", { output: ok }),
    ]);
    expect(a.turn).toBe(1);
    expect(b.turn).toBe(1);
    expect(c.turn).toBe(2);
    expect(a.output).toEqual({ city: "Oslo", celsius: 3 });
    expect(c.output).toEqual({ ok: true });
  });

  test("a schema that cannot be used is refused before anything is queued", async () => {
    const { agent } = rig();
    const refused = async (output: unknown): Promise<OutputError> => {
      const error = await agent.send("x", { output: output as JsonObject }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(OutputError);
      return error as OutputError;
    };
    expect((await refused(z3.object({ a: z3.string() }))).message).toContain("zod 3 schema");
    expect((await refused({ type: "array", items: {} })).message).toContain("must describe an object");
    expect((await refused(z.union([z.object({ a: z.string() }), z.object({ b: z.string() })]))).message).toContain(
      "must describe an object at its root",
    );
    expect((await refused("nope")).code).toBe("invalid-schema");
    expect(() => agent.stream("x", { output: [] as unknown as JsonObject })).toThrow(OutputError);
    expect(agent.session.events).toEqual([]);
  });

  test("a bad repair count is LoopError invalid-options (send rejects, createAgent throws)", async () => {
    const { agent } = rig();
    await expect(agent.send("x", { output: weather, repair: -1 })).rejects.toMatchObject({ code: "invalid-options" });
    expect(() => rig({ repair: 1.5 })).toThrow(LoopError);
    expect(() => rig({ output: "nope" as unknown as JsonObject })).toThrow(OutputError);
  });

  test("outputOf recomputes each turn's output from the log alone, or its issues", async () => {
    const r = rig({ replies: [{ text: oslo }, { text: "{}" }] });
    await r.agent.send("weather?", { output: weather });
    await r.agent.send("again", { output: weather, repair: 0 });
    const events = r.agent.session.events;
    const first = await outputOf(events, weather, { turn: 1 });
    expectTypeOf(first).toExtend<{ ok: true; value: { city: string; celsius: number } } | { ok: false }>();
    expect(first).toEqual({ ok: true, value: { city: "Oslo", celsius: 3 } });
    expect(await outputOf(events, weather)).toEqual({
      ok: false,
      issues: [
        "city: Invalid input: expected string, received undefined",
        "celsius: Invalid input: expected number, received undefined",
      ],
    });
    expect(await outputOf(events, weather, { turn: 7 })).toEqual({
      ok: false,
      issues: ["(root): turn 7 logged no answer"],
    });
  });

  test("the logged config refuses a malformed output (header payload check)", () => {
    const { agent } = rig();
    agent.session.append("turn/start", { turn: 1, trigger: "send" });
    const bad = (output: unknown): unknown => {
      try {
        agent.session.append("request/header", {
          header: { config: { model: "m", output } } as unknown as JsonObject,
          reason: "initial",
        });
        return undefined;
      } catch (error) {
        return error;
      }
    };
    expect(String(bad({ name: "a b", schema: { type: "object" } }))).toContain("config.output.name");
    expect(String(bad({ name: "a", schema: { type: "array" } }))).toContain("config.output.schema.type");
    expect(String(bad({ name: "a", schema: { type: "object" }, strict: true }))).toContain("unknown output field");
    expect(bad({ name: "a", schema: { type: "object" } })).toBeUndefined();
  });
});
