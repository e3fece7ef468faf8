// How a UI message stream ends (issue #22 §2): the turn's end reason mapped to the protocol's
// finish (stop, length, error with a bounded error text, abort), an iteration that throws, and
// a client that goes away — the turn keeps running and is saved unless the app asked to cancel.
import { describe, expect, test } from "vitest";
import { ScriptedProvider } from "../../src/llm/core.js";
import { createAgent, type TurnEvent } from "../../src/loop/index.js";
import {
  type ChatRequest,
  MAX_ERROR_TEXT,
  toUIMessageStream,
  type UIMessageChunk,
  uiMessagesFromLog,
} from "../../src/serve/index.js";
import { deferred } from "../support/deferred.js";
import {
  assemble,
  chatHandler,
  chatOver,
  chunkProvider,
  collect,
  expectValidChunks,
  finish,
  textChunks,
  usage,
} from "./support.js";

const tail = (chunks: readonly UIMessageChunk[]) => chunks.filter((c) => c.type !== "data-keelson").slice(-3);

describe("the end of a UI message stream", () => {
  test("max-tokens finishes with `length`", async () => {
    const agent = createAgent({ provider: new ScriptedProvider([{ text: "cut", finish: "max-tokens" }]), model: "m" });
    const chunks = await collect(toUIMessageStream(agent.stream("go")));
    expect(chunks.at(-1)).toEqual({ type: "finish", finishReason: "length" });
    await agent.dispose();
  });

  test("an error turn sends one error chunk — its code, no message, no stack — then finish `error`", async () => {
    const message = `upstream exploded\n    at Object.<anonymous> (/srv/app.js:1:1)\n${"x".repeat(5_000)}`;
    const provider = new ScriptedProvider([
      { error: { message: `${"y".repeat(1_000)} ${message}`, code: "invalid-request" } },
    ]);
    const agent = createAgent({ provider, model: "m" });
    const chunks = await collect(toUIMessageStream(agent.stream("go")));
    await expectValidChunks(chunks);
    const errors = chunks.filter((c) => c.type === "error");
    expect(errors.length).toBe(1);
    const text = errors[0]?.type === "error" ? errors[0].errorText : "";
    expect(text.length).toBeLessThanOrEqual(MAX_ERROR_TEXT);
    expect(text).toBe("invalid-request: the turn failed (the server has the details)");
    expect(text).not.toMatch(/\n| at /);
    expect(chunks.at(-1)).toEqual({ type: "finish", finishReason: "error" });
    const { errors: reported } = await assemble(chunks);
    expect(reported).toEqual([text]);
    await agent.dispose();
  });

  test("errorText is the app's to choose, and still bounded", async () => {
    const agent = createAgent({
      provider: new ScriptedProvider([{ error: { message: "secret detail" } }]),
      model: "m",
    });
    const chunks = await collect(
      toUIMessageStream(agent.stream("go"), { errorText: () => `Something went wrong.\n${"z".repeat(999)}` }),
    );
    expect(chunks.find((c) => c.type === "error")).toEqual({ type: "error", errorText: "Something went wrong." });
    await agent.dispose();
  });

  test("a cancelled turn: its open parts close, then abort with the reason, then finish", async () => {
    const held = deferred();
    const provider = chunkProvider([
      {
        chunks: [...textChunks(0, "half", " more"), usage, finish()],
        holdAt: 2,
        gate: new Promise(() => {}),
        held: held.resolve,
      },
    ]);
    const agent = createAgent({ provider, model: "m" });
    const stream = agent.stream("go");
    const read = collect(toUIMessageStream(stream));
    await held.promise;
    stream.cancel("user pressed stop");
    const chunks = await read;
    await expectValidChunks(chunks);
    expect(tail(chunks)).toEqual([
      { type: "finish-step" },
      { type: "abort", reason: "user pressed stop" },
      { type: "finish", finishReason: "other" },
    ]);
    expect(chunks).toContainEqual({ type: "text-end", id: "text_1_1_0" });
    const { message } = await assemble(chunks);
    expect(message?.parts).toContainEqual(expect.objectContaining({ type: "text", text: "half", state: "done" }));
    await agent.dispose();
  });

  test("an iteration that throws ends the message with an error chunk and finish `error`", async () => {
    const agent = createAgent({ provider: new ScriptedProvider([]), model: "m" });
    await agent.dispose();
    const chunks = await collect(toUIMessageStream(agent.stream("late")));
    await expectValidChunks(chunks);
    // Nothing of a message before it threw: no `start`, so the page makes no empty message.
    expect(chunks[0]).toMatchObject({ type: "error", errorText: expect.stringMatching(/^disposed: /) });
    expect(chunks.at(-1)).toEqual({ type: "finish", finishReason: "error" });
  });

  test("a turn that ends before its first step (a blocked prompt) makes no assistant message on the page, as on reload", async () => {
    const agent = createAgent({ provider: new ScriptedProvider([], { fallback: { text: "ok" } }), model: "m" });
    agent.hooks.on("agent/prompt-submit", ({ prompt }) =>
      JSON.stringify(prompt).includes("forbidden") ? { action: "block", reason: "not today" } : { action: "allow" },
    );
    const run = (request: ChatRequest) => agent.stream(request.kind === "prompt" ? request.content : "");
    const { chat } = chatOver(chatHandler({ pending: () => agent, run }, []), false);
    await chat.sendMessage({ text: "forbidden" });
    expect(chat.status).toBe("error");
    expect(chat.error?.message).toBe("rejected: every prompt of the turn was blocked");
    expect(chat.messages.map((m) => m.role)).toEqual(["user"]);
    expect(uiMessagesFromLog(agent.session).map((m) => m.role)).toEqual(["user"]);
    // The next turn is a message of its own, `start` first, as ever.
    const chunks = await collect(toUIMessageStream(agent.stream("hello")));
    expect(chunks[0]).toEqual({ type: "start", messageId: "turn-2" });
    await agent.dispose();
  });

  test("events that end without a turn-end (an idle follow feed) finish without a reason", async () => {
    async function* events(): AsyncGenerator<TurnEvent> {
      yield { type: "step-start", seq: 5, turn: 2, step: 1 };
      yield { type: "text-start", turn: 2, step: 1, index: 0, id: "text_2_1_0" };
      yield { type: "text-delta", turn: 2, step: 1, index: 0, id: "text_2_1_0", delta: "so far" };
    }
    const chunks = await collect(toUIMessageStream(events(), { keelsonData: false }));
    expect(chunks).toEqual([
      { type: "start", messageId: "turn-2" },
      { type: "start-step" },
      { type: "text-start", id: "text_2_1_0" },
      { type: "text-delta", id: "text_2_1_0", delta: "so far" },
      { type: "text-end", id: "text_2_1_0" },
      { type: "finish-step" },
      { type: "finish" },
    ]);
  });
});

test("one turn per stream: a follow feed over two turns gives the first turn's message and is closed", async () => {
  const agent = createAgent({ provider: new ScriptedProvider([{ text: "one" }, { text: "two" }]), model: "m" });
  await agent.send("a");
  await agent.send("b");
  const feed = agent.follow();
  const chunks = await collect(toUIMessageStream(feed));
  expect(chunks[0]).toEqual({ type: "start", messageId: "turn-1" });
  expect(chunks.at(-1)).toEqual({ type: "finish", finishReason: "stop" });
  expect(chunks.some((c) => c.type === "text-delta" && c.delta === "two")).toBe(false);
  expect(await feed.next()).toEqual({ done: true, value: undefined });
  await agent.dispose();
});

describe("a client that goes away", () => {
  const heldTurn = () => {
    const gate = deferred();
    const held = deferred();
    const provider = chunkProvider([
      {
        chunks: [...textChunks(0, "first", " second"), usage, finish()],
        holdAt: 2,
        gate: gate.promise,
        held: held.resolve,
      },
    ]);
    return { provider, gate, held };
  };

  test("by default the turn keeps running to its end and is saved", async () => {
    const { provider, gate, held } = heldTurn();
    const agent = createAgent({ provider, model: "m" });
    const stream = agent.stream("go");
    const reader = toUIMessageStream(stream).getReader();
    await reader.read();
    await held.promise;
    await reader.cancel(); // the client disconnected
    gate.resolve();
    const outcome = await stream.outcome;
    expect(outcome.reason).toEqual({ kind: "completed" });
    expect(outcome.text).toBe("first second");
    await agent.dispose();
  });

  test("with cancelOnDisconnect the turn is cancelled and ends aborted", async () => {
    const { provider, held } = heldTurn();
    const agent = createAgent({ provider, model: "m" });
    const stream = agent.stream("go");
    const reader = toUIMessageStream(stream, { cancelOnDisconnect: true }).getReader();
    await reader.read();
    await held.promise;
    await reader.cancel();
    expect((await stream.outcome).reason).toEqual({ kind: "aborted", reason: "client disconnected" });
    await agent.dispose();
  });

  test("a follow feed is closed when its reader goes away (nothing keeps observing the session)", async () => {
    const { provider, gate, held } = heldTurn();
    const agent = createAgent({ provider, model: "m" });
    const outcome = agent.send("go");
    await held.promise;
    const feed = agent.follow({ from: 0 });
    const reader = toUIMessageStream(feed).getReader();
    await reader.read();
    await reader.cancel();
    expect(await feed.next()).toEqual({ done: true, value: undefined });
    gate.resolve();
    expect((await outcome).reason).toEqual({ kind: "completed" });
    await agent.dispose();
  });
});
