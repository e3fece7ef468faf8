// Keelson in W2: createAgent over a session whose log holds the history, the ScriptedProvider
// (no recording: a real provider keeps nothing) playing the script, the no-op tool as a zod tool.
// No store, or the JSONL store (write + fsync at every turn end, as in production).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { ScriptedProvider } from "../../src/llm/core.js"; // the provider-neutral core: no SDKs loaded
import { createAgent, type TurnOutcome, type TurnStream } from "../../src/loop/index.js";
import { JsonlSessionStore } from "../../src/store/index.js";
import { defineTool } from "../../src/tools/index.js";
import { loopHistorySession } from "../logs.js";
import type { HarnessFactory, LoopHarness } from "./harness.js";
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
  drive: "send" | "stream" = "send",
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
  return {
    async turn(prompt) {
      const outcome = drive === "send" ? await agent.send(prompt) : await drained(agent.stream(prompt));
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

export const keelsonStream: HarnessFactory = (messages, script) => keelson(messages, script, false, "stream");
export const keelsonNoStore: HarnessFactory = (messages, script) => keelson(messages, script, false);
export const keelsonJsonl: HarnessFactory = (messages, script) => keelson(messages, script, true);
