// Keelson in W2: createAgent over a session whose log holds the history, the ScriptedProvider
// (no recording: a real provider keeps nothing) playing the script, the no-op tool as a zod tool.
// No store, or the JSONL store (write + fsync at every turn end, as in production).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { ScriptedProvider } from "../../src/llm/core.js"; // the provider-neutral core: no SDKs loaded
import { type Agent, createAgent, type TurnOutcome, type TurnStream } from "../../src/loop/index.js";
import { JsonlSessionStore } from "../../src/store/index.js";
import { defineTool } from "../../src/tools/index.js";
import { loopHistorySession } from "../logs.js";
import type { HarnessFactory, LoopHarness } from "./harness.js";
import { PushIterator } from "./protocol-floor.js";
import { FINAL_TEXT, type LoopScript, STEP_TEXT, SYSTEM, TOOL } from "./script.js";

const noop = defineTool({
  name: TOOL,
  description: "does nothing",
  input: z.object({ n: z.number() }),
  // No side effects: with a store the loop makes each finished step durable (one group commit
  // per step) but need not also flush before this tool runs (see test/loop/durability.test.ts).
  readOnly: true,
  execute: () => "ok",
});

async function keelson(
  messages: number,
  script: LoopScript,
  withStore: boolean,
  drive: "send" | "stream" | "bare tap" = "send",
): Promise<LoopHarness> {
  const root = withStore ? await mkdtemp(join(tmpdir(), "keelson-w2-")) : undefined;
  const provider = new ScriptedProvider([], {
    record: false,
    fallback: () => {
      const r = script.next();
      return r.kind === "final"
        ? { text: FINAL_TEXT }
        : { text: STEP_TEXT, toolCalls: [{ name: TOOL, arguments: { n: r.n } }] };
    },
  });
  const agent = createAgent({
    provider,
    model: "scripted:bench",
    session: loopHistorySession(messages, `w2-${messages}`),
    tools: [noop],
    system: SYSTEM,
    invariants: false,
    maxSteps: 100_000,
    ...(root === undefined ? {} : { store: new JsonlSessionStore({ root }) }),
  });
  const tap = drive === "bare tap" ? bareTap(agent) : undefined;
  return {
    async turn(prompt) {
      const outcome =
        drive === "stream" ? await drained(agent.stream(prompt)) : tap ? await tap(prompt) : await agent.send(prompt);
      if (outcome.reason.kind !== "completed") throw new Error(`keelson turn ended ${JSON.stringify(outcome.reason)}`);
    },
    historyLength: () => agent.session.deriveMessages().length,
    async dispose() {
      await agent.dispose();
      if (root !== undefined) await rm(root, { recursive: true, force: true });
    },
  };
}

/** `stream()` drained: every event read as it comes (what a server that forwards them does). */
async function drained(stream: TurnStream): Promise<TurnOutcome> {
  for await (const _event of stream);
  return stream.outcome;
}

/**
 * W2's in-loop floor for the stream ÷ send pair: `send()`, with the same events a drained
 * `stream()` yields a step (the logged events, through the session's observer; the provider's
 * block chunks, through the `llm/chunk` hook) pushed as they come through a bare async iterator
 * (protocol-floor.ts: one parked promise each, no mapping, no feed) to a `for await` consumer.
 * What any iterator over the loop's events costs there, whoever writes it.
 */
function bareTap(agent: Agent): (prompt: string) => Promise<TurnOutcome> {
  let iterator: PushIterator | undefined;
  agent.session.observe((event) => iterator?.push({ done: false, value: event }));
  agent.hooks.on("llm/chunk", ({ chunk }) => {
    if (chunk.type !== "usage" && chunk.type !== "finish") iterator?.push({ done: false, value: chunk });
  });
  return async (prompt) => {
    const events = new PushIterator();
    iterator = events;
    const reading = (async () => {
      for await (const _event of events);
    })();
    const outcome = await agent.send(prompt);
    iterator = undefined;
    events.push({ done: true, value: undefined });
    await reading;
    return outcome;
  };
}

export const keelsonBareTap: HarnessFactory = (messages, script) => keelson(messages, script, false, "bare tap");
export const keelsonStream: HarnessFactory = (messages, script) => keelson(messages, script, false, "stream");
export const keelsonNoStore: HarnessFactory = (messages, script) => keelson(messages, script, false);
export const keelsonJsonl: HarnessFactory = (messages, script) => keelson(messages, script, true);
