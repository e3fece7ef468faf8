// Issue #12 end to end — real adapters, real SDKs, the loop and the emulator's HTTP server:
//  - P4: the request body the server received is, byte for byte, `wireBody` of the request the
//    log reconstructs (what `keelson requests --wire` prints), for all three wires;
//  - P1: a DeepSeek thinking-mode tool turn whose tool call came without reasoning completes
//    (the emulator, like DeepSeek, rejects a span without reasoning_content);
//  - P5: a prompt far over the model's window is refused at the door (`prompt-too-large`), and a
//    history grown over it ends the turn `context-overflow`; neither is sent;
//  - P2: an endpoint that accepts and never answers is retried on the first-byte deadline, and
//    the final error names it;
//  - P3: an endpoint nobody listens on: the CLI's retry notice names it at each retry, and the
//    final error says `could not reach Anthropic at <url>`.
import { type AddressInfo, createServer, type Socket } from "node:net";
import { describe, expect, test } from "vitest";
import { attachRetryNotice } from "../../src/cli/retry-notice.js";
import { wireBody } from "../../src/cli/wire-payload.js";
import { ScriptedEmulatorModel } from "../../src/emulator/index.js";
import { AnthropicProvider, OpenAICompatibleProvider } from "../../src/llm/index.js";
import { createAgent } from "../../src/loop/index.js";
import { reconstructRequests } from "../../src/reconstruct/index.js";
import {
  agentOn,
  emulator,
  expectHealthy,
  type Flavor,
  instant,
  onCleanup,
  optionsFor,
  prefixPlugin,
  readingModel,
  retries,
  user,
} from "./support.js";

describe("P4: the wire body is a function of the log, byte for byte", () => {
  test.each(["anthropic", "openai", "deepseek"] as const satisfies readonly Flavor[])(
    "%s: every body the server received equals wireBody(reconstructed request)",
    async (flavor) => {
      const server = await emulator({
        keepRawBodies: true,
        model: readingModel(),
        ...(flavor === "deepseek" ? { style: "deepseek" as const } : {}),
      });
      const agent = agentOn(flavor, server, {
        plugins: [prefixPlugin([user("<system-reminder>skills: none</system-reminder>")])],
      });
      expect((await agent.send("read a.txt")).reason).toEqual({ kind: "completed" });
      expect((await agent.send("thanks — ünïcødé \u2028 too")).reason).toEqual({ kind: "completed" });
      const received = server.requests.map((r) => r.rawBody);
      const rebuilt = [...reconstructRequests(agent.session.events)].map((r) => wireBody(r, agent.session.id, flavor));
      expect(received).toHaveLength(3); // the read call, its answer, the second turn
      expect(rebuilt).toEqual(received);
      if (flavor === "anthropic") expect(received.every((body) => body!.endsWith(',"stream":true}'))).toBe(true);
      expectHealthy(agent, server, flavor === "anthropic" ? "anthropic" : "openai");
    },
  );
});

describe("P1: DeepSeek thinking mode and tool calls without reasoning", () => {
  test('a tool call that streamed no reasoning is replayed with reasoning_content "" and the turn completes', async () => {
    const server = await emulator({
      style: "deepseek",
      model: new ScriptedEmulatorModel([
        { toolCalls: [{ name: "read", arguments: { path: "a.txt" } }] }, // no reasoning at all
        { reasoning: "Now I know.", text: "Forty-two lines." },
        { text: "Bye." },
      ]),
    });
    const agent = agentOn("deepseek", server, { model: "deepseek-reasoner" });
    expect((await agent.send("how long is a.txt?")).reason).toEqual({ kind: "completed" });
    expect((await agent.send("thanks")).reason).toEqual({ kind: "completed" });
    expect(server.requests.map((r) => r.status)).toEqual([200, 200, 200]);
    const assistants = (server.requests[2]!.body as { messages: Record<string, unknown>[] }).messages.filter(
      (m) => m.role === "assistant",
    );
    expect(assistants.map((m) => m.reasoning_content)).toEqual(["", "Now I know."]);
    expectHealthy(agent, server, "openai");
  });
});

describe("P5: a request far over the context window is never sent", () => {
  test.each(["anthropic", "deepseek"] as const)(
    "%s: a prompt that alone could never fit is refused at the door (prompt-too-large); nothing is logged or sent",
    async (flavor) => {
      const server = await emulator({ model: () => ({ text: "fine" }), style: "deepseek" });
      const agent = agentOn(flavor, server);
      const before = agent.session.events.length;
      const huge = `summarize: ${"lorem ipsum ".repeat(900_000)}`; // 10.8 MB
      await expect(agent.send(huge)).rejects.toMatchObject({
        code: "prompt-too-large",
        message: expect.stringMatching(
          /^the prompt is about [\d,]+ tokens \(estimated\), far over the [\d,]+-token context window of /,
        ),
      });
      expect(() => agent.stream(huge)).toThrow(expect.objectContaining({ code: "prompt-too-large" }));
      await expect(agent.steer(huge)).rejects.toMatchObject({ code: "prompt-too-large" });
      expect(agent.session.events).toHaveLength(before);
      expect(server.requests).toHaveLength(0);
      // The session is not spoiled: the next prompt runs.
      expect((await agent.send("hello")).reason).toEqual({ kind: "completed" });
    },
  );

  test.each(["anthropic", "deepseek"] as const)(
    "%s: prompts that fit one by one but not together: the request is refused before sending (context-overflow)",
    async (flavor) => {
      const server = await emulator({ model: () => ({ text: "noted" }), style: "deepseek" });
      const agent = agentOn(flavor, server);
      // Each just under the window's margin (200k tokens for Anthropic's 200k, 128k for DeepSeek's 128k, at bytes/4).
      const part = "lorem ipsum ".repeat(flavor === "anthropic" ? 66_000 : 42_000);
      expect((await agent.send(`remember: ${part}`)).reason).toEqual({ kind: "completed" });
      const outcome = await agent.send(`and: ${part}`);
      expect(outcome.reason).toMatchObject({ kind: "error", code: "context-overflow" });
      expect((outcome.reason as { message: string }).message).toMatch(
        /tokens \(estimated\), far over the model's [\d,]+-token context window/,
      );
      expect(retries(agent)).toEqual([]);
      expect(server.requests).toHaveLength(1);
    },
  );
});

describe("P2: an endpoint that accepts and never answers", () => {
  // The deadline runs from the attempt's start, connecting and writing included: at 100 ms a
  // loaded machine could abort an attempt before its POST reached the server.
  const FIRST_BYTE_MS = 500;
  /** Accepts TCP connections, reads, never answers; counts the requests it was sent. */
  async function silent(): Promise<{ url: string; posts: () => number }> {
    const sockets = new Set<Socket>();
    let posts = 0;
    const server = createServer((socket) => {
      sockets.add(socket);
      socket.on("data", (data: Buffer) => {
        if (data.toString("latin1").startsWith("POST ")) posts++;
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    onCleanup(async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, posts: () => posts };
  }

  test.each(["anthropic", "openai"] as const)(
    "%s: each attempt ends on the first-byte deadline, is retried as 'stalled', and the error names the URL",
    async (flavor) => {
      const endpoint = await silent();
      const emulated = await emulator(); // optionsFor wants one; never used
      const provider =
        flavor === "anthropic"
          ? new AnthropicProvider({ apiKey: "k", baseURL: endpoint.url, firstByteTimeoutMs: FIRST_BYTE_MS })
          : new OpenAICompatibleProvider({
              flavor: "openai",
              apiKey: "k",
              baseURL: `${endpoint.url}/v1`,
              firstByteTimeoutMs: FIRST_BYTE_MS,
            });
      const agent = createAgent({
        ...optionsFor(flavor, emulated),
        provider,
        retry: { ...instant, maxAttempts: 3 },
      });
      const started = Date.now();
      const outcome = await agent.send("hello?");
      expect(outcome.reason).toMatchObject({ kind: "error", code: "stalled" });
      expect((outcome.reason as { message: string }).message).toContain(endpoint.url);
      expect((outcome.reason as { message: string }).message).toContain("first-byte timeout");
      expect(retries(agent).map((r) => r.code)).toEqual(["stalled", "stalled"]);
      expect(endpoint.posts()).toBe(3);
      expect(Date.now() - started).toBeLessThan(10_000); // does not hang
    },
  );
});

describe("P3: an endpoint nobody listens on", () => {
  test("each retry is announced naming the URL; the turn's error says where it could not reach", async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(probe.address() as AddressInfo).port}`;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const emulated = await emulator(); // optionsFor wants one; never used
    const provider = new AnthropicProvider({ apiKey: "k", baseURL: url });
    const agent = createAgent({
      ...optionsFor("anthropic", emulated),
      provider,
      retry: { ...instant, maxAttempts: 3 },
    });
    const notices: string[] = [];
    attachRetryNotice(agent, provider.baseURL, (line) => notices.push(line));
    const outcome = await agent.send("hello?");
    expect(outcome.reason).toMatchObject({ kind: "error", code: "connection" });
    expect((outcome.reason as { message: string }).message).toMatch(
      new RegExp(`^could not reach Anthropic at ${url}: Connection error\\. \\(.*ECONNREFUSED`),
    );
    expect(notices).toEqual([
      `keelson: connection from ${url}; retrying in 1.0 s (attempt 2)\n`,
      `keelson: connection from ${url}; retrying in 2.0 s (attempt 3)\n`,
    ]);
  });
});
