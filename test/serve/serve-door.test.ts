// keelson/serve checks what it is given at the boundary (found from outside against the packed
// build): a wrong argument or option is a typed `ServeError` with a `code` at the call — never a
// raw TypeError — and a value the events yield that no turn event is (or one that cannot be
// written: no JSON form, an SSE type that is not a plain token, a seq that is not an integer)
// ends the stream with a typed error chunk or frame, as an iteration that throws does.
import { IncomingMessage, ServerResponse } from "node:http";
import { Socket } from "node:net";
import { describe, expect, test } from "vitest";
import { ScriptedProvider } from "../../src/llm/core.js";
import { createAgent, type TurnEvent } from "../../src/loop/index.js";
import {
  followFrom,
  openTurnFrom,
  parseChatRequest,
  pipeSSE,
  pipeUIMessageStream,
  readJsonBody,
  readSSE,
  ServeError,
  sseResponse,
  toSSE,
  toUIMessageStream,
  type UIMessageChunk,
  UIMessageEncoder,
  uiMessageStreamBody,
  uiMessageStreamResponse,
  uiMessagesFromLog,
} from "../../src/serve/index.js";
import { collect, expectValidChunks } from "./support.js";

/** What `run` throws (synchronously or as a rejection). */
async function thrown(run: () => unknown): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error("expected a refusal");
}

const serveError = (code: string, message: RegExp = /./) =>
  expect.objectContaining({ name: "ServeError", code, message: expect.stringMatching(message) });

/** An async iterable that yields `values` (anything: the point is what the encoders do with it). */
async function* yielding(...values: unknown[]): AsyncGenerator<TurnEvent> {
  for (const value of values) yield value as TurnEvent;
}

const turnStart = { type: "turn-start", seq: 0, turn: 1, trigger: "send" } as const;

const sseText = async (stream: ReadableStream<Uint8Array>): Promise<string> =>
  new TextDecoder().decode(Buffer.concat(await collect(stream)));

describe("wrong arguments: ServeError('invalid-argument') at the call", () => {
  test("the encoders refuse events that are not an async iterable", async () => {
    const res = { writeHead() {}, write() {}, end() {}, on() {} } as never;
    for (const events of [null, 42, {}, [turnStart], "events"]) {
      const bad = events as AsyncIterable<TurnEvent>;
      for (const call of [
        () => toUIMessageStream(bad),
        () => uiMessageStreamBody(bad),
        () => uiMessageStreamResponse(bad),
        () => pipeUIMessageStream(bad, res),
        () => toSSE(bad),
        () => sseResponse(bad),
        () => pipeSSE(bad, res),
      ]) {
        const error = await thrown(call);
        expect(error).toBeInstanceOf(ServeError);
        expect(error).toEqual(serveError("invalid-argument", /events must be an async iterable/));
        expect((error as ServeError).status).toBe(500);
      }
    }
  });

  test("a response's init that no response could have, or a res that is no ServerResponse: refused before any event is read", async () => {
    // Found from outside: `Response` and `writeHead` threw their own RangeError / TypeError (or took `headers: 5`).
    let pulled = 0;
    const events = (async function* () {
      pulled++;
      yield turnStart as TurnEvent;
    })();
    const res = { writeHead() {}, write() {}, end() {}, on() {} } as never;
    for (const init of [
      { status: 99 },
      { status: "x" },
      { status: 200.5 },
      { status: 204 },
      { status: 304 },
      { headers: new Headers({ "x-a": "1" }) },
      { headers: new Map([["x-a", "1"]]) },
      { statusText: "a\nb" },
      { statusText: 7 },
      { headers: 5 },
      { headers: ["x"] },
      { headers: { "bad name": "x" } },
      { headers: { "x-a": "one\r\ntwo" } },
      { headers: { "x-a": 1 } },
    ] as never[])
      for (const call of [
        () => sseResponse(events, init),
        () => uiMessageStreamResponse(events, init),
        () => pipeSSE(events, res, init),
        () => pipeUIMessageStream(events, res, init),
      ])
        expect(await thrown(call), JSON.stringify(init)).toEqual(serveError("invalid-options"));
    for (const bad of [null, {}, { writeHead() {} }, "res"] as never[]) {
      expect(await thrown(() => pipeSSE(events, bad))).toEqual(serveError("invalid-argument", /ServerResponse/));
      expect(await thrown(() => pipeUIMessageStream(events, bad))).toEqual(
        serveError("invalid-argument", /ServerResponse/),
      );
    }
    expect(pulled).toBe(0);
    const ok = sseResponse(yielding(turnStart), { status: 201, statusText: "Created", headers: { "x-trace": "a b" } });
    expect([ok.status, ok.headers.get("x-trace")]).toEqual([201, "a b"]);
  });

  test("readSSE refuses what is neither a Response nor a byte stream", () => {
    for (const input of [null, 42, {}, "data: {}"])
      expect(() => readSSE(input as Response)).toThrow(serveError("invalid-argument", /readSSE: input must be/));
  });

  test("followFrom refuses a request without headers", () => {
    for (const request of [null, undefined, 42, {}, { headers: null }])
      expect(() => followFrom(request as unknown as Request)).toThrow(
        serveError("invalid-argument", /followFrom: request must be/),
      );
    expect(followFrom({ headers: { "last-event-id": 5 as unknown as string }, url: 7 as unknown as string })).toBe(
      undefined, // a hand-made header map's non-string value names no position
    );
  });

  test("uiMessagesFromLog refuses what is neither a Session nor events, and names a malformed event and its seq", () => {
    for (const log of [null, 42, {}, { events: 3 }])
      expect(() => uiMessagesFromLog(log as never)).toThrow(serveError("invalid-argument", /log must be a Session/));
    const malformed = [{ type: "user/message", seq: 0, data: {} }];
    expect(() => uiMessagesFromLog(malformed as never)).toThrow(
      serveError("invalid-log", /user\/message \(seq 0\): data\.content is undefined, not an array of parts/),
    );
    const cases: [unknown[], RegExp][] = [
      [[42], /event 0 of the log \(42\) is not a session event/],
      [[{ type: "turn/start", seq: "0", data: {} }], /event 0 of the log \(type "turn\/start", seq "0"\)/],
      [[{ type: "turn/start", seq: 0, data: { trigger: "send" } }], /turn\/start \(seq 0\): data\.turn is undefined/],
      [
        [{ type: "user/message", seq: 3, data: { source: "user", content: [{ type: "video" }] } }],
        /user\/message \(seq 3\): data\.content\[0\] is not a text or image part \(type "video"\)/,
      ],
      [
        [
          { type: "turn/start", seq: 0, data: { turn: 1, trigger: "send" } },
          { type: "step/start", seq: 1, data: { turn: 1, step: 1 } },
          { type: "assistant/message", seq: 2, data: { turn: 1, step: 1, content: "hi" } },
        ],
        /assistant\/message \(seq 2\): data\.content is "hi"/,
      ],
    ];
    for (const [log, message] of cases)
      expect(() => uiMessagesFromLog(log as never)).toThrow(serveError("invalid-log", message));
  });
});

describe("wrong options: ServeError('invalid-options') at the call", () => {
  test("readSSE's maxEventChars must be a positive integer (a string, NaN, Infinity, 0 would lift or break the bound)", () => {
    const body = new ReadableStream<Uint8Array>();
    for (const maxEventChars of ["x", Number.NaN, Number.POSITIVE_INFINITY, 0, -1, 1.5])
      expect(() => readSSE(body, { maxEventChars: maxEventChars as number })).toThrow(
        serveError("invalid-options", /maxEventChars must be a positive integer/),
      );
    expect(() => readSSE(body, null as never)).toThrow(serveError("invalid-options", /options must be an object/));
  });

  test("followFrom's logLength must be an integer ≥ 0", () => {
    const request = { headers: new Headers({ "last-event-id": "3" }) };
    for (const logLength of [1.5, -1, Number.NaN, "10"])
      expect(() => followFrom(request, { logLength: logLength as number })).toThrow(
        serveError("invalid-options", /logLength must be an integer ≥ 0/),
      );
    expect(followFrom(request, { logLength: 10 })).toBe(3);
  });

  test("the encoders' options have their types: a messageId of 7 would make a start chunk the AI SDK rejects", () => {
    const events = yielding(turnStart);
    expect(() => toUIMessageStream(events, { messageId: 7 as unknown as string })).toThrow(
      serveError("invalid-options", /messageId must be a string, got 7/),
    );
    expect(() => toUIMessageStream(events, { errorText: "oops" as never })).toThrow(serveError("invalid-options"));
    expect(() => toUIMessageStream(events, null as never)).toThrow(serveError("invalid-options"));
    expect(() => toSSE(events, { include: true as never })).toThrow(
      serveError("invalid-options", /include must be a function/),
    );
    expect(() => uiMessagesFromLog([], { subagents: {} as never })).toThrow(serveError("invalid-options", /Map/));
  });

  test("a key a function does not take is refused, naming it (a misspelt option would silently keep its default)", async () => {
    const events = yielding(turnStart);
    const res = new ServerResponse(new IncomingMessage(new Socket()));
    const request = new IncomingMessage(new Socket());
    const misspelt = { cancelOndisconnect: true } as never;
    const refusals: [string, () => unknown][] = [
      ["toUIMessageStream", () => toUIMessageStream(events, misspelt)],
      ["uiMessageStreamBody", () => uiMessageStreamBody(events, misspelt)],
      ["uiMessageStreamResponse", () => uiMessageStreamResponse(events, misspelt)],
      ["pipeUIMessageStream", () => pipeUIMessageStream(events, res, misspelt)],
      ["toSSE", () => toSSE(events, misspelt)],
      ["sseResponse", () => sseResponse(events, misspelt)],
      ["pipeSSE", () => pipeSSE(events, res, misspelt)],
      ["UIMessageEncoder", () => new UIMessageEncoder(misspelt)],
      ["readSSE", () => readSSE(new ReadableStream<Uint8Array>(), misspelt)],
      ["followFrom", () => followFrom({ headers: new Headers() }, misspelt)],
      ["openTurnFrom", () => openTurnFrom([], misspelt)],
      ["uiMessagesFromLog", () => uiMessagesFromLog([], misspelt)],
      ["parseChatRequest", () => parseChatRequest({}, misspelt)],
      ["readJsonBody", () => readJsonBody(request, misspelt)],
    ];
    for (const [where, call] of refusals)
      expect(await thrown(call), where).toEqual(
        serveError("invalid-options", new RegExp(`^${where} has no option "cancelOndisconnect" \\(it takes`)),
      );
    // Each takes what its option types name; a key whose value is undefined is let be.
    expect(() =>
      toUIMessageStream(yielding(turnStart), { cancelOnDisconnect: true, keepAliveMs: undefined } as never),
    ).not.toThrow();
    expect(() => toUIMessageStream(yielding(turnStart), { keepAliveMs: 5 } as never)).toThrow(
      serveError("invalid-options", /toUIMessageStream has no option "keepAliveMs"/),
    );
    expect(() =>
      uiMessageStreamBody(yielding(turnStart), { keepAliveMs: 0, messageId: "m", keelsonData: false }),
    ).not.toThrow();
    expect(() =>
      uiMessageStreamResponse(yielding(turnStart), { status: 201, headers: { "x-a": "b" }, keepAliveMs: 0 }),
    ).not.toThrow();
    expect(() => toSSE(yielding(turnStart), { messageId: "m" } as never)).toThrow(
      serveError(
        "invalid-options",
        /toSSE has no option "messageId" \(it takes cancelOnDisconnect, keepAliveMs, include\)/,
      ),
    );
    expect(() => parseChatRequest({}, { by: 5 } as never)).toThrow(
      serveError("invalid-options", /by must be a string/),
    );
  });
});

describe("an event the encoders cannot write ends the stream with a typed error", () => {
  test("the UI message stream: a yielded 42 or null is an `error` chunk, then `finish` (schema-valid)", async () => {
    for (const bad of [42, null, { type: 3 }]) {
      const chunks = await collect(toUIMessageStream(yielding(turnStart, bad)));
      await expectValidChunks(chunks);
      expect(chunks.slice(-2)).toEqual([
        { type: "error", errorText: "invalid-event: the turn failed (the server has the details)" }, // the message quotes the value: not sent
        { type: "finish", finishReason: "error" },
      ]);
    }
  });

  test("plain SSE: a yielded 42, a cycle, a bigint are a stream-error frame readSSE throws as ServeError", async () => {
    const cycle: Record<string, unknown> = { type: "turn-start", seq: 0, turn: 1, trigger: "send" };
    cycle.self = cycle;
    const cases: [unknown, RegExp][] = [
      [42, /the events yielded 42, not a turn event/],
      [null, /the events yielded null, not a turn event/],
      [cycle, /the \\"turn-start\\" event \(seq 0\) cannot be written as JSON/], // the frame's data is JSON
      [{ ...turnStart, seq: 1, turn: 10n }, /cannot be written as JSON/],
      // Found from outside: a toJSON of its own gave an untyped error, or a frame whose lines were not its data.
      [{ ...turnStart, seq: 1, toJSON: () => undefined }, /has a toJSON method/],
      [{ ...turnStart, seq: 1, toJSON: () => ({ ...turnStart, type: "turn-end" }) }, /has a toJSON method/],
    ];
    for (const [bad, message] of cases) {
      const text = await sseText(toSSE(yielding(turnStart, bad)));
      const last = text.trimEnd().split("\n\n").at(-1)!;
      expect(last).toMatch(/^event: stream-error\ndata: \{"code":"invalid-event","message":".*"\}$/);
      expect(last).toMatch(message);
      const read: TurnEvent[] = [];
      const error = await thrown(async () => {
        for await (const event of readSSE(toSSE(yielding(turnStart, bad)))) read.push(event);
      });
      expect(error).toEqual(serveError("stream-error", /invalid-event/));
      expect(read).toEqual([turnStart]);
    }
  });

  // Found from outside: these ended with code `error` (a TypeError inside), began a message with a
  // `finish-step`, or were dropped without a word.
  test("a committed event without its seq, an answer or result without its content array, a delta without its text: invalid-event", async () => {
    const cases: [unknown, RegExp][] = [
      [
        { type: "step-end", turn: 1, step: 1, dispatched: false },
        /step-end.* event: its seq undefined is not a log position/,
      ],
      [{ type: "assistant-message", seq: 1, turn: 1, step: 1, content: null }, /its content null is not an array/],
      [
        { type: "tool-result", seq: 1, turn: 1, step: 1, callId: "c", content: "ok", isError: false },
        /its content .*ok.* is not an array/,
      ],
      [{ type: "text-delta", turn: 1, step: 1, index: 0, id: "t", delta: 5 }, /its delta 5 is not text/],
    ];
    for (const [bad, message] of cases) {
      const chunks = await collect(toUIMessageStream(yielding(turnStart, bad)));
      await expectValidChunks(chunks);
      expect(chunks.map((chunk) => chunk.type)).not.toContain("finish-step");
      expect(chunks.slice(-2)).toEqual([
        { type: "error", errorText: "invalid-event: the turn failed (the server has the details)" },
        { type: "finish", finishReason: "error" },
      ]);
      const text = await sseText(toSSE(yielding(turnStart, bad)));
      expect(text.trimEnd().split("\n\n").at(-1)).toMatch(message);
    }
  });

  test("an SSE event type that is not a plain token never reaches the frame raw; nor does a seq that is no integer", async () => {
    const injected = await sseText(toSSE(yielding({ type: "a\nid: 99\ndata: {}", seq: 1 }), { include: () => true }));
    expect(injected).not.toMatch(/^id: 99$/m);
    expect(injected).not.toContain("event: a");
    expect(injected).toMatch(/^event: stream-error\ndata: \{"code":"invalid-event",.*is not a plain token/);
    for (const seq of ["1\n\ndata: 5", 1.5, -1, Number.NaN]) {
      const text = await sseText(toSSE(yielding({ ...turnStart, seq })));
      expect(text, String(seq)).toMatch(/^event: stream-error\ndata: \{"code":"invalid-event",.*is not a log position/);
      expect(text).not.toMatch(/^id:/m);
    }
  });
});

describe("errorText", () => {
  const failingTurn = () => {
    const provider = new ScriptedProvider([{ error: { code: "auth", message: "bad key", retryable: false } }]);
    return createAgent({ provider, model: "m", retry: { maxAttempts: 1 } });
  };

  test("by default the client gets the error's code, never its message (a provider's reply, a path, a key)", async () => {
    const provider = new ScriptedProvider([
      { error: { code: "auth", message: "401 invalid x-api-key; org org_123; /srv/app/db.sqlite", retryable: false } },
    ]);
    const agent = createAgent({ provider, model: "m", retry: { maxAttempts: 1 } });
    const chunks: UIMessageChunk[] = await collect(toUIMessageStream(agent.stream("go")));
    await expectValidChunks(chunks);
    expect(chunks.slice(-2)).toEqual([
      { type: "error", errorText: "auth: the turn failed (the server has the details)" },
      { type: "finish", finishReason: "error" },
    ]);
    expect(JSON.stringify(chunks)).not.toMatch(/x-api-key|org_123|db\.sqlite/); // the data part's reason too
    expect(agent.session.events.at(-1)?.data).toMatchObject({
      reason: { message: expect.stringMatching(/x-api-key/) },
    });
    // A thrown error without a code that is a plain word: `error`.
    for (const thrown of [new Error("secret"), Object.assign(new Error("x"), { code: "has space" }), "str", null]) {
      const events = (async function* () {
        yield turnStart as TurnEvent;
        throw thrown;
      })();
      expect((await collect(toUIMessageStream(events))).at(-2)).toEqual({
        type: "error",
        errorText: `error: the turn failed (the server has the details)`,
      });
    }
    await agent.dispose();
  });

  test("errorText is asked once per error: the data part and the error chunk say the same", async () => {
    const agent = failingTurn();
    const asked: unknown[] = [];
    const errorText = (error: unknown): string => {
      asked.push(error);
      return "Something went wrong.";
    };
    const chunks: UIMessageChunk[] = await collect(toUIMessageStream(agent.stream("go"), { errorText }));
    expect(asked).toHaveLength(1);
    const end = chunks.find((c) => c.type === "data-keelson" && (c.data as { event: string }).event === "turn-end");
    expect(end).toMatchObject({ data: { reason: { kind: "error", code: "auth", message: "Something went wrong." } } });
    await agent.dispose();
  });

  test("a callback that throws or returns no string gets the default text: the stream still sends error, then finish", async () => {
    for (const errorText of [
      () => {
        throw new Error("callback broke");
      },
      () => 42 as unknown as string,
      () => undefined as unknown as string,
    ]) {
      const agent = failingTurn();
      const chunks: UIMessageChunk[] = await collect(toUIMessageStream(agent.stream("go"), { errorText }));
      await expectValidChunks(chunks);
      expect(chunks.slice(-2)).toEqual([
        { type: "error", errorText: "auth: the turn failed (the server has the details)" },
        { type: "finish", finishReason: "error" },
      ]);
      await agent.dispose();
    }
    // The same for an iteration that throws.
    const throwing = (async function* () {
      yield turnStart as TurnEvent;
      throw new Error("the feed broke");
    })();
    const chunks = await collect(
      toUIMessageStream(throwing, {
        errorText: () => {
          throw new Error("callback broke");
        },
      }),
    );
    expect(chunks.slice(-2)).toEqual([
      { type: "error", errorText: "error: the turn failed (the server has the details)" },
      { type: "finish", finishReason: "error" },
    ]);
  });

  test("a callback's string is used", async () => {
    const agent = failingTurn();
    const chunks = await collect(toUIMessageStream(agent.stream("go"), { errorText: () => "Something went wrong." }));
    expect(chunks.at(-2)).toEqual({ type: "error", errorText: "Something went wrong." });
    await agent.dispose();
  });
});
