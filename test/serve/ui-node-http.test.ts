// pipeUIMessageStream over a real node:http server (issue #22 §2): useChat's own transport
// POSTs to it and reads the stream; a client that aborts cancels the turn only when the server
// asked for cancelOnDisconnect.
import { DefaultChatTransport } from "ai";
import { afterEach, describe, expect, test } from "vitest";
import { ScriptedProvider } from "../../src/llm/core.js";
import { type Agent, createAgent, type TurnStream } from "../../src/loop/index.js";
import { parseChatRequest, pipeUIMessageStream, ServeError, uiMessagesFromLog } from "../../src/serve/index.js";
import { deferred } from "../support/deferred.js";
import { assemble, closeServers, collect, echo, listen } from "./support.js";

afterEach(closeServers);

/** POST /api/chat: the last user message as a turn of `agent`, streamed back. */
async function serve(
  agent: Agent,
  cancelOnDisconnect: boolean,
  started?: (stream: TurnStream) => void,
): Promise<string> {
  const origin = await listen(async (req, res) => {
    let text = "";
    for await (const piece of req) text += piece;
    try {
      const stream = agent.stream(parseChatRequest(JSON.parse(text)).content);
      started?.(stream);
      await pipeUIMessageStream(stream, res, { cancelOnDisconnect });
    } catch (error) {
      res.writeHead(error instanceof ServeError ? error.status : 500).end(String(error));
    }
  });
  return `${origin}/api/chat`;
}

const send = (api: string, text: string, signal?: AbortSignal) =>
  new DefaultChatTransport({ api }).sendMessages({
    chatId: "c",
    messages: [{ id: "u", role: "user", parts: [{ type: "text", text }] }],
    abortSignal: signal,
    trigger: "submit-message",
    messageId: undefined,
  });

describe("pipeUIMessageStream", () => {
  test("useChat's transport reads the turn over HTTP; the message equals the log's", async () => {
    const provider = new ScriptedProvider([
      { toolCalls: [{ name: "echo", arguments: { text: "z" } }] },
      { text: "ok" },
    ]);
    const agent = createAgent({ provider, model: "m", tools: [echo] });
    const api = await serve(agent, false);
    const chunks = await collect(await send(api, "hello"));
    const { message } = await assemble(chunks as never);
    expect(message).toEqual(uiMessagesFromLog(agent.session).at(-1));
    await agent.dispose();
  });

  test("the response carries the protocol's headers", async () => {
    const agent = createAgent({ provider: new ScriptedProvider([{ text: "x" }]), model: "m" });
    const api = await serve(agent, false);
    const response = await fetch(api, {
      method: "POST",
      body: JSON.stringify({ messages: [{ role: "user", parts: [{ type: "text", text: "hi" }] }] }),
    });
    expect(response.headers.get("x-vercel-ai-ui-message-stream")).toBe("v1");
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    expect(await response.text()).toMatch(/data: \{"type":"finish","finishReason":"stop"\}\n\ndata: \[DONE\]\n\n$/);
    await agent.dispose();
  });

  for (const cancelOnDisconnect of [false, true])
    test(`a client that aborts mid-turn: cancelOnDisconnect ${cancelOnDisconnect} → the turn ${cancelOnDisconnect ? "ends aborted" : "completes"}`, async () => {
      const gate = deferred();
      // answers once the test opens the gate; a cancelled call ends at once ("hang" sees the abort)
      const provider = new ScriptedProvider([
        (request) =>
          new Promise((resolve) => {
            gate.promise.then(() => resolve({ text: "late answer" }));
            request.signal.addEventListener("abort", () => resolve("hang"));
          }),
      ]);
      const agent = createAgent({ provider, model: "m" });
      const started = deferred<TurnStream>();
      const api = await serve(agent, cancelOnDisconnect, started.resolve);
      const abort = new AbortController();
      const reader = (await send(api, "go", abort.signal)).getReader();
      await reader.read(); // the stream is flowing
      abort.abort();
      await reader.cancel().catch(() => {});
      const stream = await started.promise;
      if (!cancelOnDisconnect) gate.resolve();
      const outcome = await stream.outcome;
      expect(outcome.reason).toEqual(
        cancelOnDisconnect ? { kind: "aborted", reason: "client disconnected" } : { kind: "completed" },
      );
      gate.resolve();
      await agent.dispose();
    });
});
