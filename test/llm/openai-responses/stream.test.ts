// Responses stream events → Keelson chunks, event by event (no network): blocks per output item,
// summary parts joined by a blank line, what the deltas missed filled in at `output_item.done`,
// provider data on block-end, usage normalized (cached and written tokens out of the input),
// finishes, and every failure typed — error events and failed responses by code, deltas for items
// that never started as `protocol`, a stream that never completes as a retryable drop.
import type OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { ProviderError, type StreamChunk } from "../../../src/llm/index.js";
import { normalizeResponsesUsage, ResponsesEventMapper } from "../../../src/llm/openai-responses/index.js";
import { thrown } from "../../support/thrown.js";
import { assemble } from "../support.js";

type Event = OpenAI.Responses.ResponseStreamEvent;
const ev = (type: string, fields: Record<string, unknown> = {}): Event =>
  ({ type, sequence_number: 0, ...fields }) as unknown as Event;

const usage = {
  input_tokens: 2000,
  input_tokens_details: { cached_tokens: 1536, cache_write_tokens: 128 },
  output_tokens: 50,
  output_tokens_details: { reasoning_tokens: 30 },
  total_tokens: 2050,
};
const completed = (status = "completed", extra: Record<string, unknown> = {}) =>
  ev(`response.${status === "completed" ? "completed" : status === "incomplete" ? "incomplete" : status}`, {
    response: { id: "resp_1", status, usage, output: [], ...extra },
  });

function run(events: readonly Event[]): StreamChunk[] {
  const mapper = new ResponsesEventMapper();
  return [...events.flatMap((e) => mapper.map(e)), ...mapper.end()];
}

const reasoningItem = {
  id: "rs_1",
  type: "reasoning",
  summary: [
    { type: "summary_text", text: "First." },
    { type: "summary_text", text: "Second." },
  ],
  encrypted_content: "enc",
};

describe("ResponsesEventMapper", () => {
  it("reasoning, a message and two calls become four blocks with their provider data; usage normalized; tool-calls finish", () => {
    const chunks = run([
      ev("response.created", { response: { id: "resp_1", status: "in_progress" } }),
      ev("response.output_item.added", { output_index: 0, item: { id: "rs_1", type: "reasoning", summary: [] } }),
      ev("response.reasoning_summary_part.added", { output_index: 0, summary_index: 0 }),
      ev("response.reasoning_summary_text.delta", { output_index: 0, summary_index: 0, delta: "First." }),
      ev("response.reasoning_summary_part.added", { output_index: 0, summary_index: 1 }),
      ev("response.reasoning_summary_text.delta", { output_index: 0, summary_index: 1, delta: "Second." }),
      ev("response.output_item.done", { output_index: 0, item: reasoningItem }),
      ev("response.output_item.added", { output_index: 1, item: { id: "msg_1", type: "message", content: [] } }),
      ev("response.output_text.delta", { output_index: 1, content_index: 0, delta: "Hel" }),
      ev("response.output_text.delta", { output_index: 1, content_index: 0, delta: "lo" }),
      ev("response.output_item.done", {
        output_index: 1,
        item: { id: "msg_1", type: "message", content: [{ type: "output_text", text: "Hello" }], phase: "commentary" },
      }),
      ev("response.output_item.added", {
        output_index: 2,
        item: { id: "fc_1", type: "function_call", call_id: "call_a", name: "read", arguments: "" },
      }),
      ev("response.function_call_arguments.delta", { output_index: 2, delta: '{"pa' }),
      ev("response.function_call_arguments.delta", { output_index: 2, delta: 'th":"a"}' }),
      ev("response.output_item.done", {
        output_index: 2,
        item: { id: "fc_1", type: "function_call", call_id: "call_a", name: "read", arguments: '{"path":"a"}' },
      }),
      ev("response.output_item.added", {
        output_index: 3,
        item: { id: "fc_2", type: "function_call", call_id: "call_b", name: "read", arguments: "" },
      }),
      // No deltas at all: the arguments come whole with the done event.
      ev("response.output_item.done", {
        output_index: 3,
        item: { id: "fc_2", type: "function_call", call_id: "call_b", name: "read", arguments: '{"path":"b"}' },
      }),
      completed(),
    ]);
    const result = assemble(chunks);
    expect(result.content).toEqual([
      { type: "reasoning", text: "First.\n\nSecond.", providerData: { api: "openai-responses", item: reasoningItem } },
      { type: "text", text: "Hello", providerData: { api: "openai-responses", id: "msg_1", phase: "commentary" } },
      {
        type: "tool-call",
        callId: "call_a",
        name: "read",
        arguments: '{"path":"a"}',
        providerData: { api: "openai-responses", id: "fc_1", callId: "call_a" },
      },
      {
        type: "tool-call",
        callId: "call_b",
        name: "read",
        arguments: '{"path":"b"}',
        providerData: { api: "openai-responses", id: "fc_2", callId: "call_b" },
      },
    ]);
    expect(result.finish).toBe("tool-calls");
    expect(result.usage).toEqual({
      inputTokens: 336,
      cacheReadTokens: 1536,
      cacheWriteTokens: 128,
      outputTokens: 50,
      reasoningTokens: 30,
    });
  });

  it("an incomplete response: max_output_tokens → max-tokens, content_filter → stop; open blocks are closed", () => {
    const added = ev("response.output_item.added", {
      output_index: 0,
      item: { id: "m", type: "message", content: [] },
    });
    const delta = ev("response.output_text.delta", { output_index: 0, delta: "cut" });
    const cut = assemble(
      run([added, delta, completed("incomplete", { incomplete_details: { reason: "max_output_tokens" } })]),
    );
    expect(cut).toMatchObject({ finish: "max-tokens", content: [{ type: "text", text: "cut" }] });
    const filtered = run([added, delta, completed("incomplete", { incomplete_details: { reason: "content_filter" } })]);
    expect(filtered.at(-1)).toEqual({ type: "finish", reason: "stop" });
  });

  it("items Keelson does not offer (hosted tools) are skipped with their events", () => {
    const result = assemble(
      run([
        ev("response.output_item.added", { output_index: 0, item: { id: "ws", type: "web_search_call" } }),
        ev("response.output_item.done", { output_index: 0, item: { id: "ws", type: "web_search_call" } }),
        ev("response.output_item.added", { output_index: 1, item: { id: "m", type: "message", content: [] } }),
        ev("response.output_text.delta", { output_index: 1, delta: "ok" }),
        completed(),
      ]),
    );
    expect(result.content).toEqual([{ type: "text", text: "ok" }]);
  });

  it("a delta for an item that never started, or of another kind, is a final protocol error", () => {
    const mapper = new ResponsesEventMapper();
    const error = thrown(
      () => mapper.map(ev("response.output_text.delta", { output_index: 4, delta: "x" })),
      ProviderError,
    );
    expect(error).toMatchObject({ code: "protocol", retryable: false });
    mapper.map(
      ev("response.output_item.added", { output_index: 0, item: { id: "r", type: "reasoning", summary: [] } }),
    );
    expect(
      thrown(
        () => mapper.map(ev("response.function_call_arguments.delta", { output_index: 0, delta: "{" })),
        ProviderError,
      ).message,
    ).toContain("is a reasoning item");
    const noId = ev("response.output_item.added", { output_index: 1, item: { type: "function_call", name: "read" } });
    expect(thrown(() => mapper.map(noId), ProviderError).code).toBe("protocol");
  });

  it.each([
    ["rate_limit_exceeded", "rate-limited", true],
    ["server_error", "server-error", true],
    [null, "server-error", true],
    ["context_length_exceeded", "context-overflow", false],
    ["invalid_prompt", "invalid-request", false],
  ] as const)(
    "an error event with code %s is %s (retryable %s), as is a failed response",
    (code, expected, retryable) => {
      const mapper = new ResponsesEventMapper();
      expect(
        thrown(() => mapper.map(ev("error", { code, message: "boom", param: null })), ProviderError),
      ).toMatchObject({
        code: expected,
        retryable,
      });
      const failed = ev("response.failed", { response: { status: "failed", error: { code, message: "boom" } } });
      expect(thrown(() => mapper.map(failed), ProviderError)).toMatchObject({ code: expected, retryable });
    },
  );

  it("a stream that ends before response.completed was cut off: a retryable connection failure", () => {
    const mapper = new ResponsesEventMapper();
    mapper.map(ev("response.created", { response: { id: "r" } }));
    expect(thrown(() => mapper.end(), ProviderError)).toMatchObject({ code: "connection", retryable: true });
  });

  it("usage without details is all uncached input", () => {
    expect(normalizeResponsesUsage({ input_tokens: 10, output_tokens: 2 } as OpenAI.Responses.ResponseUsage)).toEqual({
      inputTokens: 10,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      outputTokens: 2,
    });
  });
});
