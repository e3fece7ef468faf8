// A provider (or a gateway in front of it) that answers an error with megabytes, echoing the API
// key (found from outside, #22): the turn's logged end, its outcome and everything built from
// them carried 2 MiB and the key. The message is now bounded (MAX_ERROR_MESSAGE_CHARS and a
// count of what was left out) and the adapter's own key is `[redacted]`, message and causes.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, test } from "vitest";
import { MAX_ERROR_MESSAGE_CHARS } from "../../src/errors/index.js";
import { AnthropicProvider, OpenAICompatibleProvider, type Provider, ProviderError } from "../../src/llm/index.js";
import { withoutKey } from "../../src/llm/key-redaction.js";
import { createAgent } from "../../src/loop/index.js";

const KEY = "sk-test-0123456789abcdefSECRET";
const HUGE = 2 * 1024 * 1024;

let server: Server | undefined;
afterEach(async () => {
  if (server !== undefined) await new Promise((resolve) => server!.close(resolve));
  server = undefined;
});

/** A loopback server answering every request with `status` and an error body that echoes the key. */
async function echoingServer(status: number, body: (message: string) => unknown): Promise<string> {
  server = createServer((req, res) => {
    req.resume();
    const message = `request with key ${KEY} refused: ${"x".repeat(HUGE)} (again ${KEY})`;
    res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body(message)));
  });
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server!.address() as AddressInfo).port}`;
}

const cases: [string, number, (url: string) => Provider, (message: string) => unknown][] = [
  [
    "Anthropic, 401",
    401,
    (url) => new AnthropicProvider({ apiKey: KEY, baseURL: url }),
    (message) => ({ type: "error", error: { type: "authentication_error", message } }),
  ],
  [
    "chat completions, 400",
    400,
    (url) => new OpenAICompatibleProvider({ flavor: "compatible", apiKey: KEY, baseURL: `${url}/v1` }),
    (message) => ({ error: { message, type: "invalid_request_error" } }),
  ],
];

describe("a provider's error is bounded and never carries the key", () => {
  for (const [name, status, provider, body] of cases)
    test(name, async () => {
      const url = await echoingServer(status, body);
      const agent = createAgent({ provider: provider(url), model: "m", invariants: false });
      const outcome = await agent.send("hi");
      expect(outcome.reason.kind).toBe("error");
      const logged = agent.session.events.at(-1)!;
      for (const text of [JSON.stringify(outcome.reason), JSON.stringify(logged)]) {
        expect(text).not.toContain(KEY);
        expect(text.length).toBeLessThan(MAX_ERROR_MESSAGE_CHARS + 500);
      }
      expect((outcome.reason as { message: string }).message).toMatch(/\[redacted\].*more characters\)$/s);
      await agent.dispose();
    });
});

describe("a key the bound cuts through", () => {
  test("its kept start is redacted too, and only at the cut", () => {
    for (const kept of [4, 12, KEY.length - 1]) {
      const head = "x".repeat(MAX_ERROR_MESSAGE_CHARS - kept);
      const error = new ProviderError("server-error", `${head}${KEY}${"y".repeat(100)}`);
      expect(error.message).toContain(KEY.slice(0, kept)); // the bound cut the key
      const message = withoutKey(error, KEY).message;
      expect(message).toBe(`${head}[redacted]… (${KEY.length - kept + 100} more characters)`);
    }
    const short = new ProviderError("server-error", `${"x".repeat(MAX_ERROR_MESSAGE_CHARS - 3)}sk-${"y".repeat(50)}`);
    expect(withoutKey(short, KEY).message).toBe(short.message); // three characters: too short to tell
    const uncut = new ProviderError("server-error", `ends with ${KEY.slice(0, 12)}`);
    expect(withoutKey(uncut, KEY).message).toBe(uncut.message); // not cut: a start of the key is not the key
  });
});
