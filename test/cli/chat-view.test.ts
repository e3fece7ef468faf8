// ChatView over a real agent (createAgent + ScriptedProvider, no store): the answer streamed
// chunk by chunk, the spinner from step/start until the first token (and while a tool runs),
// one line per tool call and result, the footer from the log with the registry's pricing, and
// silence once detached. Spinner and answer go to separate fake outputs that share one
// timeline, together with markers from listeners registered after the view's.
import { describe, expect, test } from "vitest";
import { ChatView } from "../../src/cli/chat-view.js";
import { Spinner, type SpinnerTimers } from "../../src/cli/spinner.js";
import { ModelRegistry, ScriptedProvider, type ScriptedStep } from "../../src/llm/index.js";
import { type Agent, createAgent } from "../../src/loop/index.js";
import { fixedClock } from "../support/builders.js";
import { deferred } from "../support/deferred.js";
import { readTool } from "../loop/support.js";

const ERASE = "\r\x1b[2K";
const SONNET = "anthropic:claude-sonnet-4-5";

type Entry = readonly ["out" | "spin" | "chunk" | "event", string];

class FakeTimers implements SpinnerTimers {
  readonly intervals: { fn: () => void; cleared: boolean }[] = [];
  setInterval(fn: () => void): unknown {
    const handle = { fn, cleared: false };
    this.intervals.push(handle);
    return handle;
  }
  clearInterval(handle: unknown): void {
    (handle as { cleared: boolean }).cleared = true;
  }
  get active(): number {
    return this.intervals.filter((h) => !h.cleared).length;
  }
}

const MARKED = new Set(["step/start", "assistant/message", "tool/call", "tool/result", "llm/retry", "turn/end"]);

interface Rig {
  readonly agent: Agent;
  readonly view: ChatView;
  readonly spinner: Spinner;
  readonly timers: FakeTimers;
  readonly timeline: Entry[];
  readonly detach: () => void;
  /** The timeline's `out` and `spin` entries only. */
  shown(): Entry[];
}

function rig(
  replies: readonly ScriptedStep[],
  model = SONNET,
  extra: { retry?: { sleep: () => Promise<void>; jitter: number } } = {},
): Rig {
  const timeline: Entry[] = [];
  const timers = new FakeTimers();
  const spinOut = { isTTY: true, write: (t: string) => timeline.push(["spin", t]) };
  const spinner = new Spinner(spinOut, timers);
  const view = new ChatView({ write: (t: string) => timeline.push(["out", t]) }, spinOut, new ModelRegistry(), spinner);
  const provider = new ScriptedProvider(replies, { fallback: { text: "done" } });
  const agent = createAgent({
    provider,
    model,
    system: "You are a careful assistant.",
    tools: [readTool],
    clock: fixedClock(),
    cwd: "/ws",
    ...extra,
  });
  const detach = view.attach(agent);
  // Registered after the view's listeners: each marker lands right after what the view wrote for it.
  agent.hooks.on("llm/chunk", ({ chunk }) => {
    if (chunk.type === "text-delta") timeline.push(["chunk", chunk.text]);
  });
  agent.hooks.on("session/event", ({ event }) => {
    if (MARKED.has(event.type)) timeline.push(["event", event.type]);
  });
  return {
    agent,
    view,
    spinner,
    timers,
    timeline,
    detach,
    shown: () => timeline.filter(([kind]) => kind === "out" || kind === "spin"),
  };
}

describe("ChatView", () => {
  test("streams the answer chunk by chunk, spins until the first token and while tools run, and prints calls and results", async () => {
    const { agent, timeline, timers, spinner } = rig([
      {
        text: "Let me look.",
        toolCalls: [
          { name: "read", arguments: { path: "notes.txt" } },
          { name: "nope", arguments: {} },
        ],
      },
      { text: "It says hello." },
    ]);
    expect(await agent.send("what is in notes.txt?")).toEqual({ turn: 1, reason: { kind: "completed" } });

    expect(timeline).toEqual([
      // step 1: the spinner starts with the step and is erased before the first text.
      ["spin", `${ERASE}⠋ thinking`],
      ["event", "step/start"],
      ["spin", ERASE],
      // each chunk is written as it arrives, before the step's assistant message is logged
      ["out", "Let me"],
      ["chunk", "Let me"],
      ["out", " look."],
      ["chunk", " look."],
      ["event", "assistant/message"],
      ["out", "\n"], // the tool line starts on a fresh line
      ["out", '  ⚙ read {"path":"notes.txt"}\n'],
      ["spin", `${ERASE}⠙ running read`],
      ["event", "tool/call"],
      ["spin", ERASE],
      ["out", "  ✓ contents of notes.txt\n"],
      ["event", "tool/result"],
      ["out", "  ⚙ nope {}\n"],
      ["spin", `${ERASE}⠹ running nope`],
      ["event", "tool/call"],
      ["spin", ERASE],
      ["out", '  ✗ Unknown tool "nope". Available tools: read.\n'],
      ["event", "tool/result"],
      // step 2
      ["spin", `${ERASE}⠸ thinking`],
      ["event", "step/start"],
      ["spin", ERASE],
      ["out", "It says"],
      ["chunk", "It says"],
      ["out", " hello."],
      ["chunk", " hello."],
      ["event", "assistant/message"],
      ["out", "\n"], // the turn ends on a fresh line
      ["event", "turn/end"],
    ]);
    expect(spinner.spinning).toBe(false);
    expect(timers.intervals).toHaveLength(4);
    expect(timers.active).toBe(0);
    await agent.dispose();
  });

  test("footer() prints the turn's summed usage, hit share and cost under the registry's pricing", async () => {
    const { agent, view, shown } = rig([
      {
        toolCalls: [{ name: "read", arguments: { path: "a.txt" } }],
        usage: { inputTokens: 1200, cacheWriteTokens: 3000, outputTokens: 40 },
      },
      { text: "Done.", usage: { inputTokens: 25, cacheReadTokens: 3000, cacheWriteTokens: 60, outputTokens: 12 } },
      { text: "Second.", usage: { inputTokens: 999_999, outputTokens: 1 } },
    ]);
    const first = await agent.send("read a.txt");
    await agent.send("again"); // a later turn is not counted in turn 1's footer
    const before = shown().length;
    view.footer(agent, first.turn);
    // 1225·3 + 3000·0.3 + 3060·3.75 + 52·15 = 16,830 µ$ (claude-sonnet-4-5); 3000 / 7285 = 41.2%
    expect(shown().slice(before)).toEqual([
      [
        "out",
        "── turn 1 · 2 steps · input 1,225 · cache read 3,000 · cache write 3,060 · output 52 · cache hit 41.2% · $0.01683 · completed\n",
      ],
    ]);
    view.footer(agent, 2);
    expect(shown().at(-1)).toEqual([
      "out",
      "── turn 2 · 1 step · input 999,999 · cache read 0 · cache write 0 · output 1 · cache hit 0.0% · $3.00001 · completed\n",
    ]);
    await agent.dispose();
  });

  test("footer() says cost n/a for a model the registry does not know", async () => {
    const { agent, view, shown } = rig([{ text: "hi" }], "scripted:test");
    await agent.send("hello");
    view.footer(agent, 1);
    expect(shown().at(-1)).toEqual([
      "out",
      "── turn 1 · 1 step · input 0 · cache read 0 · cache write 0 · output 0 · cache hit - · cost n/a · completed\n",
    ]);
    await agent.dispose();
  });

  test("a retry is announced on its own line", async () => {
    const { agent, shown } = rig(
      [{ error: { message: "slow down", code: "rate-limited", retryable: true, retryAfterMs: 250 } }, { text: "ok" }],
      SONNET,
      {
        retry: { sleep: async () => undefined, jitter: 0 },
      },
    );
    await agent.send("hi");
    expect(shown()).toContainEqual(["out", "  ↻ rate-limited: retrying (attempt 2) in 250 ms\n"]);
    expect(
      shown()
        .filter(([kind]) => kind === "out")
        .map(([, t]) => t),
    ).toEqual(["  ↻ rate-limited: retrying (attempt 2) in 250 ms\n", "o", "k", "\n"]);
    await agent.dispose();
  });

  test("pause() and line() mid-answer start on a fresh line, once", async () => {
    const { agent, view, shown } = rig([{ text: "partial answer" }]);
    agent.hooks.on("llm/chunk", ({ chunk }) => {
      if (chunk.type !== "text-delta" || chunk.text !== "partial") return;
      view.pause(); // as before a permission question
      view.pause();
      view.line("notice");
    });
    await agent.send("hi");
    expect(shown().filter(([kind]) => kind === "out")).toEqual([
      ["out", "partial"],
      ["out", "\n"],
      ["out", "notice\n"],
      ["out", " answer"],
      ["out", "\n"],
    ]);
    view.pause(); // at line start: nothing
    expect(shown().filter(([kind]) => kind === "out")).toHaveLength(5);
    await agent.dispose();
  });

  test("detach stops the spinner mid-step and all later output", async () => {
    const dispatched = deferred();
    const { agent, timeline, timers, spinner, detach, shown } = rig([
      () => {
        dispatched.resolve();
        return "hang"; // until the turn is cancelled
      },
    ]);
    const outcome = agent.send("wait for it");
    await dispatched.promise;
    expect(spinner.spinning).toBe(true);
    detach();
    expect(spinner.spinning).toBe(false);
    expect(timers.active).toBe(0);
    expect(shown()).toEqual([
      ["spin", `${ERASE}⠋ thinking`],
      ["spin", ERASE],
    ]);
    const mark = timeline.length;
    agent.cancel("stop");
    expect((await outcome).reason).toEqual({ kind: "aborted", reason: "stop" });
    await agent.send("another turn"); // answered "done" by the fallback
    expect(timeline.slice(mark).filter(([kind]) => kind === "out" || kind === "spin")).toEqual([]);
    expect(timeline.slice(mark)).toContainEqual(["chunk", "do"]); // the agent did stream; the view did not listen
    await agent.dispose();
  });
});

test("a retry line names the provider's endpoint when the view knows it", async () => {
  const { agent, view, shown } = rig(
    [{ error: { message: "down", code: "connection", retryable: true, retryAfterMs: 10 } }, { text: "ok" }],
    SONNET,
    { retry: { sleep: async () => undefined, jitter: 0 } },
  );
  view.endpoint = "http://127.0.0.1:9";
  await agent.send("hi");
  expect(shown()).toContainEqual(["out", "  ↻ connection from http://127.0.0.1:9: retrying (attempt 2) in 10 ms\n"]);
  await agent.dispose();
});
