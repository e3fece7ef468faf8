// P20 as a property: whatever the model answers (text, tool calls to good, throwing and unknown
// tools, provider errors, thrown streams, max-tokens) and whatever goes wrong at any hook of any
// turn and step (a throwing listener, a cancel, a dispose), every event lies inside a turn, each
// turn/start has exactly one turn/end, each step/start one step/end, no tool call is left
// without a result, the log verifies, and every request equals its reconstruction.
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import type { ScriptedStep } from "../../src/llm/index.js";
import { LoopError } from "../../src/loop/index.js";
import { reconstructRequests } from "../../src/reconstruct/index.js";
import {
  callsTo,
  eventsOf,
  first,
  expectClosedLog,
  expectRequestsMatchLog,
  type Rig,
  rig,
  tool,
} from "./loop-support.js";

type Point = "prompt-submit" | "session-prefix" | "pre-step" | "agent/request" | "llm/stream" | "llm/chunk" | "tool";
type Action = "throw" | "cancel" | "dispose";

interface Fault {
  readonly action: Action;
  readonly point: Point;
  readonly turn: number;
  /** Ignored at points that run before any step (prompt-submit, session-prefix). */
  readonly step: number;
}

const replyArb: fc.Arbitrary<ScriptedStep> = fc.oneof(
  fc.string({ maxLength: 8 }).map((text) => ({ text: `t${text}` })),
  fc.array(fc.constantFrom("echo", "fail", "ghost"), { minLength: 1, maxLength: 3 }).map((names) => ({
    text: "calling",
    toolCalls: names.map((name) => ({ name, arguments: { text: name } })),
  })),
  fc.constant({ error: { message: "overloaded", code: "overloaded" } }),
  fc.constant({ throws: new Error("connection reset") }),
  fc.constant({ text: "cut", finish: "max-tokens" as const }),
);

const faultArb: fc.Arbitrary<Fault> = fc.record({
  action: fc.constantFrom<Action>("throw", "cancel", "dispose"),
  point: fc.constantFrom<Point>(
    "prompt-submit",
    "session-prefix",
    "pre-step",
    "agent/request",
    "llm/stream",
    "llm/chunk",
    "tool",
  ),
  turn: fc.integer({ min: 1, max: 3 }),
  step: fc.integer({ min: 1, max: 3 }),
});

const scenarioArb = fc.record({
  replies: fc.array(replyArb, { maxLength: 8 }),
  faults: fc.array(faultArb, { maxLength: 2 }),
  turns: fc.integer({ min: 1, max: 3 }),
});

/** An agent whose hooks (and tools) fire each fault once, when its turn and step come. */
interface FaultyRig extends Rig {
  readonly disposedInTurn: () => number | undefined;
  /** Requests handed to `llm/stream` (a throwing llm/stream fault stops some before the provider). */
  readonly streamed: () => number;
}

function faulty(replies: readonly ScriptedStep[], faults: readonly Fault[]): FaultyRig {
  let r: Rig | undefined;
  let disposedInTurn: number | undefined;
  let streamed = 0;
  const pending = new Set(faults);
  const fire = (point: Point, step: number | null): void => {
    const { agent } = r!;
    const turn = agent.session.openTurn;
    for (const f of pending) {
      if (f.point !== point || f.turn !== turn || (step !== null && f.step !== step)) continue;
      pending.delete(f);
      if (f.action === "cancel") agent.cancel(`fault at ${point}`);
      else if (f.action === "dispose") {
        disposedInTurn ??= turn ?? undefined;
        void agent.dispose();
      } else throw new Error(`fault at ${point}`);
    }
  };
  const inStep = (point: Point) => () => fire(point, r!.agent.session.openStep);
  const faultingTool = (name: string, body: () => string) =>
    tool(name, () => {
      inStep("tool")();
      return body();
    });
  r = rig({
    maxSteps: 4,
    replies,
    tools: [
      faultingTool("echo", () => "echoed"),
      faultingTool("fail", () => {
        throw new Error("tool failed");
      }),
    ],
  });
  const { hooks } = r.agent;
  hooks.on("agent/prompt-submit", (_payload, next) => first(() => fire("prompt-submit", null), next));
  hooks.on("agent/session-prefix", (_payload, next) => first(() => fire("session-prefix", null), next));
  hooks.on("agent/pre-step", ({ step }) => fire("pre-step", step));
  hooks.on("agent/request", (_payload, next) => first(inStep("agent/request"), next));
  hooks.on("llm/stream", (_payload, next) => {
    streamed++;
    return first(inStep("llm/stream"), next);
  });
  hooks.on("llm/chunk", ({ chunk }) => (chunk.type === "block-start" ? inStep("llm/chunk")() : undefined));
  return { ...r, disposedInTurn: () => disposedInTurn, streamed: () => streamed };
}

/** Sends `turns` prompts (refusals after a dispose are expected), disposes, and checks P20. */
async function runAndCheck(r: FaultyRig, turns: number): Promise<string[]> {
  const outcomes: string[] = [];
  for (let t = 1; t <= turns; t++) {
    try {
      outcomes.push((await r.agent.send(`prompt ${t}`)).reason.kind);
    } catch (error) {
      expect(error).toBeInstanceOf(LoopError);
      expect((error as LoopError).code).toBe("disposed");
      outcomes.push("refused");
    }
  }
  await r.agent.dispose();
  expectClosedLog(r.agent);
  expectRequestsMatchLog(r);
  expect(r.provider.requests).toHaveLength(r.dispatches.length);
  // Reconstruction lists exactly the requests handed to llm/stream (never a step ended before).
  expect(reconstructRequests(r.agent.session.events)).toHaveLength(r.streamed());
  const starts = eventsOf(r.agent, "turn/start").length;
  expect(eventsOf(r.agent, "turn/end")).toHaveLength(starts);
  expect(outcomes.filter((o) => o !== "refused")).toHaveLength(starts);
  // Nothing but a dispose refuses a send, and every send after the disposed turn is refused.
  const disposedIn = r.disposedInTurn();
  expect(outcomes.map((o, i) => o === "refused" || (disposedIn !== undefined && i + 1 > disposedIn))).toEqual(
    outcomes.map((o) => o === "refused"),
  );
  for (const o of outcomes) expect(["completed", "aborted", "error", "disposed", "max-tokens", "refused"]).toContain(o);
  return outcomes;
}

const points: readonly Point[] = [
  "prompt-submit",
  "session-prefix",
  "pre-step",
  "agent/request",
  "llm/stream",
  "llm/chunk",
  "tool",
];
const beforeSteps = (point: Point): boolean => point === "prompt-submit" || point === "session-prefix";
const fixed: readonly Fault[] = points.flatMap((point) =>
  (["throw", "cancel", "dispose"] as const).flatMap((action) =>
    (beforeSteps(point) ? [1] : [1, 2]).map((step) => ({ action, point, turn: 1, step })),
  ),
);

/** How the two turns end: a throw in an emit listener or a tool is contained, elsewhere it ends the turn. */
function expected(fault: Fault): string[] {
  if (fault.action === "cancel") return ["aborted", "completed"];
  if (fault.action === "dispose") return ["disposed", "refused"];
  return fault.point === "llm/chunk" || fault.point === "tool" ? ["completed", "completed"] : ["error", "completed"];
}

describe("P20: every turn and step is closed, whatever fails where", () => {
  test.each(fixed)("$action at $point (turn $turn, step $step) during tool round trips", async (fault) => {
    const r = faulty(
      [{ text: "calling", ...callsTo("echo", "fail", "ghost") }, callsTo("echo"), { text: "done" }],
      [fault],
    );
    expect(await runAndCheck(r, 2)).toEqual(expected(fault));
  });

  test("random scripts with random throws, cancels and disposals at random hooks, turns and steps", async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArb, async ({ replies, faults, turns }) => {
        await runAndCheck(faulty(replies, faults), turns);
      }),
      { numRuns: 60 },
    );
  });
});
