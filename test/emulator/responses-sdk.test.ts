// The Responses endpoint driven through the real openai SDK: `responses.stream()` assembling the
// final response, the raw event sequence, non-stream responses, encrypted reasoning sealed and
// accepted back statelessly, validation as the API refuses (reasoning without or with foreign
// encrypted content, reasoning without its following item, outputs without calls and calls
// without outputs, previous_response_id on a stateless server, a strict schema that is not),
// and OpenAI's automatic prefix caching (≥ 1024 tokens, 128-token increments, 24 h retention).
import type OpenAI from "openai";
import { describe, expect, test } from "vitest";
import { openReasoning, ScriptedEmulatorModel, sealReasoning } from "../../src/emulator/index.js";
import { emulator, filler, openaiClient, post, rejection } from "./support.js";

const MODEL = "gpt-5.4";
const readTool: OpenAI.Responses.FunctionTool = {
  type: "function",
  name: "read_file",
  description: "Read a file",
  parameters: { type: "object", properties: { path: { type: "string" } } },
  strict: false,
};

describe("Responses through the SDK", () => {
  test("responses.stream().finalResponse() assembles reasoning, text, calls and usage", async () => {
    const server = await emulator({
      model: () => ({
        reasoning: "Look first.\n\nThen answer.",
        text: "Hello",
        toolCalls: [{ name: "read_file", arguments: { path: "a.txt" } }],
      }),
    });
    const response = await openaiClient(server)
      .responses.stream({
        model: MODEL,
        input: "hi",
        tools: [readTool],
        include: ["reasoning.encrypted_content"],
        reasoning: { summary: "auto" },
        store: false,
      })
      .finalResponse();
    expect(response.status).toBe("completed");
    expect(response.output_text).toBe("Hello");
    const [reasoning, message, call] = response.output;
    expect(reasoning).toMatchObject({
      type: "reasoning",
      summary: [
        { type: "summary_text", text: "Look first." },
        { type: "summary_text", text: "Then answer." },
      ],
    });
    expect(openReasoning((reasoning as { encrypted_content: string }).encrypted_content)).toBe(
      "Look first.\n\nThen answer.",
    );
    expect(message).toMatchObject({ type: "message", role: "assistant", status: "completed" });
    expect(call).toMatchObject({ type: "function_call", call_id: "call_emu_000001", arguments: '{"path":"a.txt"}' });
    expect(response.usage).toMatchObject({
      input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
      output_tokens_details: { reasoning_tokens: expect.any(Number) },
    });
  });

  test("the event stream: created, in_progress, items with their content events, completed; sequence numbers in order; no [DONE]", async () => {
    const server = await emulator({
      model: () => ({ text: "Hi there", toolCalls: [{ name: "read_file", arguments: {} }] }),
    });
    const { events, text } = await post(`${server.openaiBaseURL}/responses`, {
      model: MODEL,
      input: "hi",
      tools: [readTool],
      stream: true,
    });
    expect(text).not.toContain("[DONE]");
    const types = events.map((e) => e.event);
    expect(types).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
      "response.output_text.delta",
      "response.output_text.delta",
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.output_item.added",
      "response.function_call_arguments.delta",
      "response.function_call_arguments.delta",
      "response.function_call_arguments.done",
      "response.output_item.done",
      "response.completed",
    ]);
    const data = events.map((e) => JSON.parse(e.data) as { type: string; sequence_number: number });
    expect(data.map((d) => d.type)).toEqual(types);
    expect(data.map((d) => d.sequence_number)).toEqual(data.map((_, i) => i));
  });

  test("a non-stream response carries output and usage; without include, reasoning has no encrypted content", async () => {
    const server = await emulator({ model: () => ({ reasoning: "quiet", text: "42" }) });
    const response = await openaiClient(server).responses.create({ model: MODEL, input: "q" });
    expect(response.output_text).toBe("42");
    expect(response.output[0]).toMatchObject({ type: "reasoning", summary: [], encrypted_content: null });
    expect(response.usage?.output_tokens).toBeGreaterThan(0);
  });

  test("sealed reasoning sent back statelessly is accepted with its following item; the model never sees it as a message", async () => {
    const model = new ScriptedEmulatorModel([
      { reasoning: "plan", toolCalls: [{ name: "read_file", arguments: {} }] },
      { text: "ok" },
    ]);
    const server = await emulator({ model });
    const client = openaiClient(server);
    const first = await client.responses.create({
      model: MODEL,
      input: "go",
      tools: [readTool],
      include: ["reasoning.encrypted_content"],
      store: false,
    });
    const call = first.output[1] as OpenAI.Responses.ResponseFunctionToolCall;
    const second = await client.responses.create({
      model: MODEL,
      input: [
        { role: "user", content: "go" },
        ...(first.output as OpenAI.Responses.ResponseInputItem[]),
        { type: "function_call_output", call_id: call.call_id, output: "file" },
      ],
      tools: [readTool],
      store: false,
    });
    expect(second.output_text).toBe("ok");
    expect(model.requests[1]!.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool"]);
  });

  test.each([
    [
      "reasoning without encrypted content (store false)",
      [
        { type: "reasoning", id: "rs_1", summary: [] },
        { role: "assistant", content: "x" },
      ],
      404,
      "Item with id 'rs_1' not found. Items are not persisted when `store` is set to false.",
    ],
    [
      "reasoning sealed by someone else (an Anthropic signature)",
      [
        { type: "reasoning", id: "rs_2", summary: [], encrypted_content: "EmuSigAAAA" },
        { role: "assistant", content: "x" },
      ],
      400,
      "The encrypted content for item rs_2 could not be verified.",
    ],
    [
      "reasoning without its following item",
      [
        { role: "user", content: "q" },
        { type: "reasoning", id: "rs_3", summary: [], encrypted_content: sealReasoning("t") },
      ],
      400,
      "Item 'rs_3' of type 'reasoning' was provided without its required following item.",
    ],
    [
      "an output for a call never made",
      [
        { role: "user", content: "q" },
        { type: "function_call_output", call_id: "call_x", output: "o" },
      ],
      400,
      "No tool call found for function call output with call_id call_x.",
    ],
    [
      "a call without its output",
      [
        { role: "user", content: "q" },
        { type: "function_call", call_id: "call_y", name: "read_file", arguments: "{}" },
        { role: "user", content: "next" },
      ],
      400,
      "No tool output found for function call call_y.",
    ],
  ])("refuses %s", async (_name, input, status, message) => {
    const server = await emulator({ model: () => ({ text: "never" }) });
    const error = (await rejection(() =>
      openaiClient(server).responses.create({
        model: MODEL,
        input: input as OpenAI.Responses.ResponseInput,
        store: false,
      }),
    )) as { status: number; message: string };
    expect(error.status).toBe(status);
    expect(error.message).toContain(message);
  });

  test("refuses previous_response_id (the emulator keeps no state) and a strict schema that is not strict", async () => {
    const server = await emulator({ model: () => ({ text: "{}" }) });
    const client = openaiClient(server);
    const stale = (await rejection(() =>
      client.responses.create({ model: MODEL, input: "q", previous_response_id: "resp_old" }),
    )) as { status: number; message: string };
    expect(stale).toMatchObject({ status: 404 });
    expect(stale.message).toContain("Previous response with id 'resp_old' not found.");
    const open = (await rejection(() =>
      client.responses.create({
        model: MODEL,
        input: "q",
        text: { format: { type: "json_schema", name: "A", schema: { type: "object", properties: {} }, strict: true } },
      }),
    )) as { status: number; message: string };
    expect(open.status).toBe(400);
    expect(open.message).toContain("Invalid schema for text.format 'A'");
  });

  test("automatic prefix caching: nothing under 1024 tokens, then the previous prompt in 128-token blocks; 24 h retention outlives idle", async () => {
    const server = await emulator({ model: () => ({ text: "ok" }) });
    const client = openaiClient(server);
    const long = `Context:${filler(1500)}`;
    const ask = async (input: OpenAI.Responses.ResponseInput, retention?: "24h") =>
      (
        await client.responses.create({
          model: MODEL,
          input,
          prompt_cache_key: "k",
          ...(retention === undefined ? {} : { prompt_cache_retention: retention }),
        })
      ).usage!;
    const short = await ask([{ role: "user", content: "short" }]);
    expect((await ask([{ role: "user", content: "short" }])).input_tokens_details.cached_tokens).toBe(0);
    expect(short.input_tokens).toBeLessThan(1024);
    const first = await ask([{ role: "user", content: long }], "24h");
    const second = await ask(
      [
        { role: "user", content: long },
        { role: "user", content: "more" },
      ],
      "24h",
    );
    expect(second.input_tokens_details.cached_tokens).toBe(Math.floor(first.input_tokens / 128) * 128);
    server.clock.advance(60 * 60_000);
    const later = await ask(
      [
        { role: "user", content: long },
        { role: "user", content: "more" },
      ],
      "24h",
    );
    expect(later.input_tokens_details.cached_tokens).toBe(Math.floor(second.input_tokens / 128) * 128);
  });
});
