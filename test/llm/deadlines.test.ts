// Attempt deadlines (issue #12, P2/P3): connecting, the first event and stalls each have a limit,
// and an endpoint that is down or accepts and never answers fails fast with a retryable error
// naming the base URL — through the real adapters (Anthropic, Chat Completions, Responses),
// against sockets on 127.0.0.1.
import diagnostics from "node:diagnostics_channel";
import { createServer as createHttpServer } from "node:http";
import { type AddressInfo, createServer, type Socket } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import { AttemptDeadlines } from "../../src/llm/attempt-deadlines.js";
import { ConnectionWatch } from "../../src/llm/connection-watch.js";
import {
  AnthropicProvider,
  OpenAICompatibleProvider,
  OpenAIResponsesProvider,
  type Provider,
  ProviderError,
} from "../../src/llm/index.js";
import { request } from "./support.js";

const BASE = "http://127.0.0.1:4999";
const options = { baseURL: BASE, connectTimeoutMs: 100, firstByteTimeoutMs: 1000, stallTimeoutMs: 500 };
const publish = (name: string, origin: string): void => diagnostics.channel(name).publish({ request: { origin } });

afterEach(() => {
  vi.useRealTimers();
});

describe("AttemptDeadlines", () => {
  it("fails the first-byte deadline when no event arrives: aborts, and the error is stalled, naming the URL", () => {
    vi.useFakeTimers();
    const onExpire = vi.fn();
    const deadlines = new AttemptDeadlines(options, onExpire);
    deadlines.start();
    deadlines.responded(); // headers came, then nothing
    vi.advanceTimersByTime(999);
    expect(onExpire).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(onExpire).toHaveBeenCalledTimes(1);
    expect(deadlines.expired).toBe("first-byte");
    const error = deadlines.error();
    expect(error).toMatchObject({ code: "stalled", retryable: true });
    expect(error.message).toBe(
      `no response from ${BASE} within 1000 ms of sending the request (first-byte timeout); the attempt was aborted`,
    );
  });

  it("arms the stall deadline only between events, never while the consumer holds an event", () => {
    vi.useFakeTimers();
    const onExpire = vi.fn();
    const deadlines = new AttemptDeadlines(options, onExpire);
    deadlines.start();
    deadlines.received();
    vi.advanceTimersByTime(5000); // the consumer's time
    expect(onExpire).not.toHaveBeenCalled();
    deadlines.waiting();
    vi.advanceTimersByTime(500);
    expect(deadlines.expired).toBe("stall");
    expect(deadlines.error().message).toContain("(stall timeout)");
  });

  it("fails the connect deadline when the fetch reported the request but never got it onto a socket", () => {
    vi.useFakeTimers();
    const onExpire = vi.fn();
    const deadlines = new AttemptDeadlines(options, onExpire);
    deadlines.start();
    publish("undici:request:create", BASE);
    vi.advanceTimersByTime(100);
    expect(deadlines.expired).toBe("connect");
    expect(onExpire).toHaveBeenCalledTimes(1);
    const error = deadlines.error();
    expect(error).toMatchObject({ code: "connection", retryable: true });
    expect(error.message).toBe(`could not connect to ${BASE} within 100 ms (connect timeout); the attempt was aborted`);
  });

  it("a connection to the origin clears the connect deadline; the first-byte one still runs", () => {
    vi.useFakeTimers();
    const deadlines = new AttemptDeadlines(options, () => {});
    deadlines.start();
    publish("undici:request:create", BASE);
    publish("undici:client:sendHeaders", BASE);
    vi.advanceTimersByTime(999);
    expect(deadlines.expired).toBeUndefined();
    vi.advanceTimersByTime(1);
    expect(deadlines.expired).toBe("first-byte");
  });

  it("does not claim a connect timeout when the fetch in use reports nothing (or another origin)", () => {
    vi.useFakeTimers();
    const deadlines = new AttemptDeadlines(options, () => {});
    deadlines.start();
    publish("undici:request:create", "http://127.0.0.1:5000");
    vi.advanceTimersByTime(999);
    expect(deadlines.expired).toBeUndefined();
    vi.advanceTimersByTime(1);
    expect(deadlines.expired).toBe("first-byte");
  });

  it("stop() clears every deadline", () => {
    vi.useFakeTimers();
    const onExpire = vi.fn();
    const deadlines = new AttemptDeadlines(options, onExpire);
    deadlines.start();
    publish("undici:request:create", BASE);
    deadlines.stop();
    vi.advanceTimersByTime(10_000);
    expect(onExpire).not.toHaveBeenCalled();
    expect(deadlines.expired).toBeUndefined();
  });
});

/** A TCP server that accepts connections, reads, never answers; counts the requests it was sent. */
async function silentServer(): Promise<{ url: string; posts: () => number; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  let posts = 0;
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("data", (data: Buffer) => {
      if (data.toString("latin1").startsWith("POST ")) posts++;
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    posts: () => posts,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A port nothing listens on: bound, then closed. */
async function closedPort(): Promise<number> {
  const server = createHttpServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function failure(provider: Provider): Promise<ProviderError> {
  try {
    for await (const _chunk of provider.stream(request({ model: "test-model" }))) {
      // drain
    }
  } catch (error) {
    expect(error).toBeInstanceOf(ProviderError);
    return error as ProviderError;
  }
  throw new Error("the stream did not fail");
}

describe("an endpoint that accepts and never answers", () => {
  it.each([
    ["Anthropic", (url: string) => new AnthropicProvider({ apiKey: "k", baseURL: url, firstByteTimeoutMs: 500 })],
    [
      "OpenAI-compatible",
      (url: string) =>
        new OpenAICompatibleProvider({ flavor: "compatible", baseURL: `${url}/v1`, firstByteTimeoutMs: 500 }),
    ],
    [
      "OpenAI Responses",
      (url: string) => new OpenAIResponsesProvider({ apiKey: "k", baseURL: `${url}/v1`, firstByteTimeoutMs: 500 }),
    ],
  ] as const)(
    "%s: the attempt fails 'stalled' (retryable) on the first-byte deadline, naming the URL",
    async (_name, make) => {
      const server = await silentServer();
      try {
        const error = await failure(make(server.url));
        expect(error).toMatchObject({ code: "stalled", retryable: true });
        expect(error.message).toContain(server.url);
        expect(error.message).toContain("first-byte timeout");
        // One attempt at most (the SDK does not retry on its own); on a loaded box the deadline can
        // fire before the server has read the POST. A hang would be the 60 s default (before: 5 min),
        // caught by the test timeout, so no wall-clock assertion is needed.
        expect(server.posts()).toBeLessThanOrEqual(1);
      } finally {
        await server.close();
      }
    },
  );
});

describe("the connect deadline with Node's own fetch", () => {
  it("Node's fetch, as the SDKs use it, reports the steps the deadline relies on", async () => {
    const server = await silentServer();
    const seen = vi.fn();
    const watch = new ConnectionWatch(server.url, seen);
    try {
      await failure(new AnthropicProvider({ apiKey: "k", baseURL: server.url, firstByteTimeoutMs: 200 }));
      expect(watch.observed).toBe(true);
      expect(watch.connected).toBe(true);
      expect(seen).toHaveBeenCalledTimes(1);
    } finally {
      watch.close();
      await server.close();
    }
  });

  it.each([
    [
      "Anthropic",
      (url: string) =>
        new AnthropicProvider({ apiKey: "k", baseURL: url, connectTimeoutMs: 300, firstByteTimeoutMs: 1500 }),
    ],
    [
      "OpenAI-compatible",
      (url: string) =>
        new OpenAICompatibleProvider({
          flavor: "compatible",
          baseURL: `${url}/v1`,
          connectTimeoutMs: 300,
          firstByteTimeoutMs: 1500,
        }),
    ],
    [
      "OpenAI Responses",
      (url: string) =>
        new OpenAIResponsesProvider({
          apiKey: "k",
          baseURL: `${url}/v1`,
          connectTimeoutMs: 300,
          firstByteTimeoutMs: 1500,
        }),
    ],
  ] as const)(
    "%s: a request that got connected is not failed by it (the connection is observed)",
    async (_name, make) => {
      const server = await silentServer();
      try {
        const error = await failure(make(server.url));
        expect(error.message).toContain("first-byte timeout"); // not "connect timeout" at 300 ms
        expect(error.code).toBe("stalled");
      } finally {
        await server.close();
      }
    },
  );
});

describe("an endpoint nobody listens on", () => {
  it("Anthropic: 'could not reach Anthropic at <url>: …' with the refused connection as the cause, retryable", async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const error = await failure(new AnthropicProvider({ apiKey: "k", baseURL: url }));
    expect(error).toMatchObject({ code: "connection", retryable: true });
    expect(error.message).toMatch(
      new RegExp(`^could not reach Anthropic at ${url}: Connection error\\. \\(.*ECONNREFUSED`),
    );
  });

  it("OpenAI-compatible: 'could not reach the provider at <url>: …', retryable", async () => {
    const url = `http://127.0.0.1:${await closedPort()}/v1`;
    const error = await failure(new OpenAICompatibleProvider({ flavor: "compatible", baseURL: url }));
    expect(error).toMatchObject({ code: "connection", retryable: true });
    expect(error.message).toMatch(new RegExp(`^could not reach the provider at ${url}: .*ECONNREFUSED`));
  });

  it("OpenAI Responses: 'could not reach the provider at <url>: …', retryable", async () => {
    const url = `http://127.0.0.1:${await closedPort()}/v1`;
    const error = await failure(new OpenAIResponsesProvider({ apiKey: "k", baseURL: url }));
    expect(error).toMatchObject({ code: "connection", retryable: true });
    expect(error.message).toMatch(new RegExp(`^could not reach the provider at ${url}: .*ECONNREFUSED`));
  });

  it("the adapters name their base URL, defaulting to the SDK's", () => {
    vi.stubEnv("ANTHROPIC_BASE_URL", "");
    vi.stubEnv("OPENAI_BASE_URL", "");
    try {
      expect(new AnthropicProvider({ apiKey: "k" }).baseURL).toBe("https://api.anthropic.com");
      expect(new OpenAICompatibleProvider({ flavor: "openai", apiKey: "k" }).baseURL).toBe("https://api.openai.com/v1");
      expect(new OpenAIResponsesProvider({ apiKey: "k" }).baseURL).toBe("https://api.openai.com/v1");
      expect(new OpenAICompatibleProvider({ flavor: "deepseek", apiKey: "k" }).baseURL).toBe(
        "https://api.deepseek.com/v1",
      );
    } finally {
      vi.unstubAllEnvs();
    }
  });
});
