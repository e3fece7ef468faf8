// The agent's doors refuse what no turn should log (issue #22, found from outside): a prompt that
// is not text or content parts, a malformed part, an image that is not base64 PNG/JPEG/GIF/WebP,
// or an empty one (no image, no text but
// whitespace — on the Anthropic wire an empty user message vanished and the request ended with
// the last answer: a prefill) is LoopError('invalid-prompt') at the call, and nothing is logged;
// stream options that would lift the memory bound (`maxBufferedChars: NaN`, a numeric string) or
// fail later untyped (`signal: "nope"`) are LoopError('invalid-options').
import { describe, expect, test } from "vitest";
import { ScriptedProvider } from "../../src/llm/core.js";
import { createAgent, LoopError } from "../../src/loop/index.js";

const agentOf = () => {
  const provider = new ScriptedProvider([], { fallback: { text: "ok" } });
  return { provider, agent: createAgent({ provider, model: "scripted:door", invariants: false }) };
};

const REFUSED: unknown[] = [
  undefined,
  null,
  42,
  {},
  { type: "text", text: "hi" }, // a part, not a list of parts
  "",
  " \n\t",
  [],
  [{ type: "text" }],
  [
    { type: "text", text: "" },
    { type: "text", text: "  " },
  ],
  [{ type: "tool-call", id: "x", name: "y", arguments: {} }],
  // An image a provider would refuse would fail this turn and every later one of the session.
  [{ type: "image", mediaType: "text/html", data: "PHNjcmlwdD4=" }],
  [{ type: "image", mediaType: "image/svg+xml", data: "PHN2Zz4=" }],
  [{ type: "image", mediaType: "image/png", data: "<script>alert(1)</script> not base64" }],
  [{ type: "image", mediaType: "image/png", data: "" }],
  [{ type: "image", mediaType: "image/png", data: "abc" }],
  // Base64 of bytes that are no image of the type named, and an image over 5 MiB of base64.
  [{ type: "image", mediaType: "image/png", data: "AAAA" }],
  [{ type: "image", mediaType: "image/png", data: "/9j/4AAQ" }], // a JPEG's first bytes
  [{ type: "image", mediaType: "image/webp", data: "UklGRhAAAABXQVZF" }], // RIFF, but WAVE
  [{ type: "image", mediaType: "image/png", data: `iVBORw0KGgo=${"A".repeat(5 * 1024 * 1024)}`.slice(1) }],
  [{ type: "image", mediaType: "image/png", data: `iVBORw0KGgoA${"A".repeat(5 * 1024 * 1024)}` }],
  // A key no wire sends would be logged and never seen by the model.
  [{ type: "text", text: "x", extra: 1 }],
  [{ type: "text", text: "x", providerData: { api: "anthropic" } }],
  [{ type: "image", mediaType: "image/png", data: "iVBORw0KGgo=", url: "https://example.com/a.png" }],
  JSON.parse('[{"type":"text","text":"x","__proto__":{"a":1}}]'),
  // What the log would refuse (lossless JSON) is refused at the door, not logged as an error turn.
  [{ type: "text", text: "x", extra: Number.NaN }],
  [{ type: "text", text: "x", when: new Date(0) }],
  [{ type: "text", text: "x", big: 1n }],
  [Object.assign(Object.create({ inherited: 1 }), { type: "text", text: "x" })],
  (() => {
    const part: Record<string, unknown> = { type: "text", text: "x" };
    part.self = part;
    return [part];
  })(),
];

async function rejection(run: () => unknown): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error("expected a refusal");
}

describe("a prompt is checked at the door", () => {
  test("send, stream, steer and inject refuse it with LoopError('invalid-prompt'); nothing is logged or sent", async () => {
    const { agent, provider } = agentOf();
    for (const prompt of REFUSED) {
      const p = prompt as string;
      for (const call of [() => agent.send(p), () => agent.stream(p), () => agent.steer(p), () => agent.inject(p)]) {
        const error = await rejection(call);
        expect(error).toBeInstanceOf(LoopError);
        expect(error).toMatchObject({ code: "invalid-prompt" });
      }
    }
    expect(agent.session.length).toBe(0);
    expect(provider.requests).toHaveLength(0);
    const outcome = await agent.send("a real prompt"); // the agent is unharmed
    expect(outcome.reason.kind).toBe("completed");
  });

  test("stream() throws at once (before anything is queued), send() rejects", async () => {
    const { agent } = agentOf();
    expect(() => agent.stream("")).toThrow(/empty/);
    await expect(agent.send("   ")).rejects.toThrow(/empty/);
  });

  test("an image with no text, and text around blank parts, are prompts", async () => {
    const { agent } = agentOf();
    const image = { type: "image", mediaType: "image/png", data: "iVBORw0KGgo=" } as const;
    expect((await agent.send([image])).reason.kind).toBe("completed");
    expect(
      (
        await agent.send([
          { type: "text", text: "" },
          { type: "text", text: "x" },
        ])
      ).reason.kind,
    ).toBe("completed");
  });

  test("an image must start as its type's files do; the refusal says which part and why", async () => {
    const { agent } = agentOf();
    const heads = {
      "image/png": "iVBORw0KGgo=",
      "image/jpeg": "/9j/4AAQ",
      "image/gif": "R0lGODlhAQABAA==",
      "image/webp": "UklGRhAAAABXRUJQVlA4IA==",
    };
    for (const [mediaType, data] of Object.entries(heads))
      expect((await agent.send([{ type: "image", mediaType, data }])).reason.kind, mediaType).toBe("completed");
    const jpegAsPng = { type: "image", mediaType: "image/png", data: "/9j/4AAQ" } as const;
    expect(() => agent.stream([{ type: "text", text: "see" }, jpegAsPng])).toThrow(
      "the prompt: the image at part 1 cannot be sent: its data does not start as a PNG file does (another type, or no image)",
    );
    expect(() => agent.stream([{ type: "text", text: "x", extra: 1 } as never])).toThrow(
      'the prompt: part 0 has "extra", which no text part of a prompt has (only type, text)',
    );
  });
});

describe("stream options are checked at the door", () => {
  test("maxBufferedChars NaN / a string / 0, a signal that is not an AbortSignal: LoopError('invalid-options')", async () => {
    const { agent } = agentOf();
    for (const options of [
      { maxBufferedChars: Number.NaN },
      { maxBufferedChars: "1000000" },
      { maxBufferedChars: 0 },
      { maxBufferedChars: 1.5 },
      { signal: "nope" },
    ]) {
      const bad = options as { maxBufferedChars?: number };
      expect(() => agent.stream("hi", bad)).toThrow(expect.objectContaining({ code: "invalid-options" }));
      expect(() => agent.follow(bad)).toThrow(expect.objectContaining({ code: "invalid-options" }));
    }
    expect(agent.session.length).toBe(0);
  });
});

describe("options that are not an object are refused typed", () => {
  test("follow(null), follow(42), stream(prompt, null): LoopError('invalid-options'), not a TypeError", async () => {
    const { agent } = agentOf();
    for (const options of [null, 42, "from=3"]) {
      const bad = options as unknown as { from?: number };
      expect(() => agent.follow(bad)).toThrow(LoopError);
      expect(() => agent.follow(bad)).toThrow(
        expect.objectContaining({
          code: "invalid-options",
          message: expect.stringMatching(/options must be an object/),
        }),
      );
      expect(() => agent.stream("hi", bad as never)).toThrow(expect.objectContaining({ code: "invalid-options" }));
    }
    expect(agent.session.length).toBe(0);
  });
});

describe("a prompt that could never fit the model's context window is refused at the door", () => {
  /** A scripted provider that knows its model's window: 1,000 tokens (refused over 1,250 estimated, ~5,000 bytes). */
  const windowed = () => {
    const provider = Object.assign(new ScriptedProvider([], { fallback: { text: "ok" } }), {
      contextWindow: (model: string) => (model === "scripted:small" ? 1_000 : undefined),
    });
    return { provider, agent: createAgent({ provider, model: "scripted:small", invariants: false }) };
  };

  test("send, stream, steer and inject: LoopError('prompt-too-large') naming the estimate and the window; nothing logged", async () => {
    const { agent, provider } = windowed();
    const huge = "x".repeat(5_004); // 1,251 tokens at bytes/4
    for (const call of [
      () => agent.send(huge),
      () => agent.stream(huge),
      () => agent.steer([{ type: "text", text: huge }]),
      () => agent.inject(huge),
    ]) {
      const error = await rejection(call);
      expect(error).toBeInstanceOf(LoopError);
      expect(error).toMatchObject({ code: "prompt-too-large" });
    }
    expect(() => agent.stream(huge)).toThrow(
      "the prompt is about 1,251 tokens (estimated), far over the 1,000-token context window of scripted:small: it could never be sent, whatever the history; nothing was logged",
    );
    await expect(agent.steer(huge)).rejects.toThrow(/^the steering message is about 1,251 tokens/);
    expect(agent.session.length).toBe(0);
    expect(provider.requests).toHaveLength(0);
    // At the margin it may fit (the estimate is coarse): it is taken, and the agent is unharmed.
    expect((await agent.send("x".repeat(5_000))).reason.kind).toBe("completed");
  });

  test("text parts count together; images are not counted (their cost is the provider's); an unknown model is not checked", async () => {
    const { agent } = windowed();
    const half = { type: "text", text: "y".repeat(2_600) } as const;
    await expect(agent.send([half, half])).rejects.toMatchObject({ code: "prompt-too-large" });
    // Counted over the whole text, not rounded up part by part: 2,000 one-byte parts are 500 tokens.
    const bytes = Array.from({ length: 2_000 }, () => ({ type: "text", text: "b" }) as const);
    expect((await agent.send(bytes)).reason.kind).toBe("completed");
    const image = { type: "image", mediaType: "image/png", data: `iVBORw0KGgoA${"A".repeat(8_000)}` } as const;
    expect((await agent.send([{ type: "text", text: "look" }, image])).reason.kind).toBe("completed");
    const unknown = createAgent({ provider: windowed().provider, model: "scripted:other", invariants: false });
    expect((await unknown.send("z".repeat(20_000))).reason.kind).toBe("completed");
    const plain = agentOf().agent; // a provider without contextWindow: nothing to check against
    expect((await plain.send("z".repeat(20_000))).reason.kind).toBe("completed");
  });
});
