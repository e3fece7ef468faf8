// Resume and fork across providers (#24, "Done when"): a session started on one API continues on
// another and back — Anthropic Messages, OpenAI Chat Completions, OpenAI Responses — through the
// real adapters and SDKs against one emulator. Each API gets only the opaque reasoning it
// produced: the others' is left out of the request (never sent to the wrong provider — the
// emulator refuses reasoning it did not seal, and the Anthropic body is checked for it), and the
// adapter says so once per session with a `dropped-reasoning` notice. Every body on the wire is,
// byte for byte, what `keelson requests --wire <api>` rebuilds from the log for that request.
import { describe, expect, test } from "vitest";
import { type EmulatorServer, ScriptedEmulatorModel } from "../../src/emulator/index.js";
import {
  AnthropicProvider,
  OpenAICompatibleProvider,
  OpenAIResponsesProvider,
  type Provider,
  type ProviderNotice,
} from "../../src/llm/index.js";
import { type Agent, createAgent, forkAgent, resumeAgent } from "../../src/loop/index.js";
import { reconstructRequests } from "../../src/reconstruct/index.js";
import { type Wire, wireBody } from "../../src/reconstruct/wire-payload.js";
import { expectClosedLog } from "../loop/loop-support.js";
import { emulator, eventsOf, optionsFor, tempStore } from "./support.js";

type Api = "anthropic" | "openai" | "responses";
const MODEL: Record<Api, string> = {
  anthropic: "anthropic:claude-sonnet-4-5",
  openai: "openai:gpt-5-mini",
  responses: "openai-responses:gpt-5.4-mini",
};
const PATH: Record<Api, string> = {
  anthropic: "/v1/messages",
  openai: "/v1/chat/completions",
  responses: "/v1/responses",
};

function provider(api: Api, server: EmulatorServer, notices: ProviderNotice[]): Provider {
  const common = { apiKey: "test-key", stallTimeoutMs: 2000, onNotice: (n: ProviderNotice) => notices.push(n) };
  if (api === "anthropic") return new AnthropicProvider({ ...common, baseURL: server.anthropicBaseURL });
  if (api === "responses") return new OpenAIResponsesProvider({ ...common, baseURL: server.openaiBaseURL });
  return new OpenAICompatibleProvider({ ...common, flavor: "openai", baseURL: server.openaiBaseURL });
}

/** Every reply reasons and, for a "read" prompt, calls the read tool first. */
function reasoningModel(): ScriptedEmulatorModel {
  let n = 0;
  return new ScriptedEmulatorModel([], {
    fallback: (request) => {
      n++;
      const last = request.messages.at(-1)!;
      if (last.role === "tool")
        return { reasoning: `Thought ${n}: the file is read.`, text: "It has forty-two lines." };
      const text = last.content[0]?.type === "text" ? last.content[0].text : "";
      return /^read /.test(text)
        ? { reasoning: `Thought ${n}: read it first.`, toolCalls: [{ name: "read", arguments: { path: "a.txt" } }] }
        : { reasoning: `Thought ${n}: a short answer.`, text: `Noted: ${text}.` };
    },
  });
}

const options = (api: Api, server: EmulatorServer, notices: ProviderNotice[]) => ({
  ...optionsFor("responses", server),
  provider: provider(api, server, notices),
  model: MODEL[api],
});

/** The API each request of the server went to, in order. */
const apis = (server: EmulatorServer): Api[] =>
  server.requests.map((r) => (Object.keys(PATH) as Api[]).find((api) => PATH[api] === r.path)!);

/**
 * Every request of `agent`'s log, rebuilt as the bytes `keelson requests --wire` prints for the
 * API it went to, equals the raw body the emulator received for it (requests of other sessions on
 * the same server are skipped by session key).
 */
function expectWireIsTheLog(agent: Agent, server: EmulatorServer, sent: readonly Api[]): void {
  const id = agent.session.id;
  const mine = server.requests.filter((r) => r.sessionKey === id);
  const rebuilt = reconstructRequests(agent.session.events);
  expect(mine).toHaveLength(rebuilt.length);
  expect(sent).toHaveLength(rebuilt.length);
  rebuilt.forEach((r, i) => {
    const wire: Wire = sent[i]!;
    expect(wireBody(r, id, wire), `request ${i + 1} (${wire})`).toBe(mine[i]!.rawBody);
  });
}

const bodyText = (server: EmulatorServer, path: string): string =>
  server.requests
    .filter((r) => r.path === path)
    .map((r) => r.rawBody)
    .join("\n");

describe("a session moves between APIs", () => {
  test("Anthropic → Responses → Anthropic: each API gets back only its own reasoning; the others' is dropped with one notice per session", async () => {
    const server = await emulator({ model: reasoningModel(), keepRawBodies: true });
    const store = await tempStore();
    const notices: ProviderNotice[] = [];

    const first = createAgent({ ...options("anthropic", server, notices), store });
    expect((await first.send("read a.txt")).reason).toEqual({ kind: "completed" });
    const id = first.session.id;
    await first.dispose();

    const onResponses = await resumeAgent(store, id, options("responses", server, notices));
    expect((await onResponses.send("read a.txt")).reason).toEqual({ kind: "completed" });
    expect((await onResponses.send("and now?")).reason).toEqual({ kind: "completed" });
    await onResponses.dispose();

    const back = await resumeAgent(store, id, options("anthropic", server, notices));
    expect((await back.send("thanks")).reason).toEqual({ kind: "completed" });
    await back.dispose();

    expect(server.requests.every((r) => r.status === 200)).toBe(true);
    // Responses never received Anthropic's signed thinking; Anthropic never received an encrypted item.
    const responsesBodies = server.requests.filter((r) => r.path === "/v1/responses");
    for (const r of responsesBodies) expect(r.rawBody).not.toContain("EmuSig");
    expect(bodyText(server, "/v1/messages")).not.toContain("EmuEnc1");
    // Back on Anthropic, its own signed thinking from turn 1 is replayed, the Responses reasoning is not.
    const last = server.requests.at(-1)!.body as { messages: { role: string; content: { type: string }[] }[] };
    const thinking = last.messages.flatMap((m) => m.content.filter((b) => b.type === "thinking"));
    expect(thinking).toHaveLength(2); // turn 1's two steps
    // On Responses, the second turn sends back the first Responses turn's reasoning items.
    const lastResponses = responsesBodies.at(-1)!.body as { input: { type?: string }[] };
    expect(lastResponses.input.filter((i) => i.type === "reasoning")).toHaveLength(2);

    expect(notices.map((n) => [n.code, n.provider, n.from, n.count])).toEqual([
      ["dropped-reasoning", "openai-responses", ["anthropic"], 2],
      ["dropped-reasoning", "anthropic", ["openai-responses"], 3],
    ]);
    expect(notices[0]!.message).toContain(`session ${id}`);
    expectClosedLog(back);
    expectWireIsTheLog(back, server, apis(server));
  });

  test("Chat Completions → Responses → Chat Completions: tool calls carry over under the loop's call ids", async () => {
    const server = await emulator({ model: reasoningModel(), keepRawBodies: true });
    const store = await tempStore();
    const notices: ProviderNotice[] = [];
    const first = createAgent({ ...options("openai", server, notices), store });
    expect((await first.send("read a.txt")).reason).toEqual({ kind: "completed" });
    const id = first.session.id;
    await first.dispose();

    const onResponses = await resumeAgent(store, id, options("responses", server, notices));
    expect((await onResponses.send("read a.txt")).reason).toEqual({ kind: "completed" });
    await onResponses.dispose();
    const body = server.requests.find((r) => r.path === "/v1/responses")!.body as {
      input: { type?: string; call_id?: string; id?: string }[];
    };
    // Chat Completions' tool call: the loop's call id, no item id (nothing to pair with).
    expect(body.input.filter((i) => i.type !== undefined).map((i) => [i.type, i.call_id, i.id])).toEqual([
      ["function_call", "call_1_1_0", undefined],
      ["function_call_output", "call_1_1_0", undefined],
    ]);

    const back = await resumeAgent(store, id, options("openai", server, notices));
    expect((await back.send("thanks")).reason).toEqual({ kind: "completed" });
    await back.dispose();
    expect(server.requests.every((r) => r.status === 200)).toBe(true);
    expect(bodyText(server, "/v1/chat/completions")).not.toContain("EmuEnc1");
    // Chat Completions reads no reasoning back: the Responses items are dropped, with a notice.
    expect(notices.map((n) => [n.provider, n.from, n.count])).toEqual([["openai", ["openai-responses"], 2]]);
    expectClosedLog(back);
    expectWireIsTheLog(back, server, apis(server));
  });

  test("a fork of a Responses session continues on Anthropic; the parent continues on Responses with its reasoning intact", async () => {
    const server = await emulator({ model: reasoningModel(), keepRawBodies: true });
    const store = await tempStore();
    const notices: ProviderNotice[] = [];
    const parent = createAgent({ ...options("responses", server, notices), store });
    await parent.send("read a.txt");
    const id = parent.session.id;
    const atSeq = eventsOf(parent, "turn/end")[0]!.seq;
    await parent.send("one more");
    await parent.dispose();

    const child = await forkAgent(store, id, { ...options("anthropic", server, notices), atSeq });
    expect((await child.send("and on Anthropic?")).reason).toEqual({ kind: "completed" });
    const childBody = server.requests.at(-1)!;
    expect(childBody.path).toBe("/v1/messages");
    expect(childBody.rawBody).not.toContain("EmuEnc1");
    await child.dispose();

    const resumed = await resumeAgent(store, id, options("responses", server, notices));
    expect((await resumed.send("and on Responses?")).reason).toEqual({ kind: "completed" });
    const parentBody = server.requests.at(-1)!.body as { input: { type?: string }[] };
    expect(parentBody.input.filter((i) => i.type === "reasoning")).toHaveLength(3);
    await resumed.dispose();

    expect(server.requests.every((r) => r.status === 200)).toBe(true);
    expect(notices.map((n) => [n.provider, n.sessionId, n.count])).toEqual([["anthropic", child.session.id, 2]]);
    expectClosedLog(child);
    // The child's own request is what the log rebuilds for the Anthropic wire, byte for byte.
    expect(wireBody(reconstructRequests(child.session.events).at(-1)!, child.session.id, "anthropic")).toBe(
      childBody.rawBody,
    );
  });
});
