// Shared pieces of the emulator tests: a server per test (closed afterwards), SDK clients
// pointed at it, a raw SSE fetch for golden transcripts, and a caught-rejection helper.
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { expect } from "vitest";
import { afterThisTest } from "../support/test-cleanups.js";
import {
  type EmulatorOptions,
  type EmulatorServer,
  parseSse,
  type SseEvent,
  startEmulator,
} from "../../src/emulator/index.js";

/** Starts an emulator that is closed after the current test. */
export async function emulator(options: EmulatorOptions = {}): Promise<EmulatorServer> {
  const server = await startEmulator(options);
  afterThisTest(() => server.close());
  return server;
}

export function anthropicClient(server: EmulatorServer, apiKey = "test"): Anthropic {
  return new Anthropic({ apiKey, baseURL: server.anthropicBaseURL, maxRetries: 0, logLevel: "off" });
}

export function openaiClient(server: EmulatorServer, apiKey = "test"): OpenAI {
  return new OpenAI({ apiKey, baseURL: server.openaiBaseURL, maxRetries: 0, logLevel: "off" });
}

/** POSTs a JSON body and returns the status, headers and parsed SSE events (or JSON). */
export async function post(
  url: string,
  body: unknown,
  headers: Record<string, string> = { authorization: "Bearer test" },
): Promise<{ status: number; headers: Headers; text: string; events: SseEvent[] }> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, events: parseSse(text) };
}

/** The events' JSON data, `[DONE]` kept as a string. */
export function payloads(events: readonly SseEvent[]): unknown[] {
  return events.map((e) => (e.data === "[DONE]" ? e.data : JSON.parse(e.data)));
}

/** The rejection of `run`, failing the test if it resolved. */
export async function rejection(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  expect.unreachable("expected a rejection");
  return undefined;
}

/** A text of roughly `tokens` tokens (distinct words, so the tokenizer cannot merge them away). */
export function filler(tokens: number, seed = "w"): string {
  return Array.from({ length: tokens }, (_, i) => ` ${seed}${i.toString(36)}`).join("");
}

export const readTool = {
  name: "read_file",
  description: "Read a file",
  input_schema: { type: "object" as const, properties: { path: { type: "string" } }, required: ["path"] },
};
