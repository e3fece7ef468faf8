// Keelson in W2S, three ways of obtaining a runnable agent over a prepared session of H messages
// (the log written the way the loop writes it; see history.ts), each followed by one turn and
// `agent.dispose()` — all timed:
//   in memory  `forkSession(parent)` of one prepared in-memory session, `createAgent({ session })`;
//   resume     `resumeAgent(store, id)` over the i-th of N stored copies (written once, untimed),
//              with per-step durability (the default) and, for comparison, `durability: "turn"`;
//   fork       `forkAgent(store, parentId)` of one stored parent (a new child file per turn).
// With the JSONL store, dispose flushes and releases the session; durability is the default
// (`step`: one group commit per finished step). The model is the ScriptedProvider (no recording)
// playing the script; the no-op tool is a read-only zod tool.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { ScriptedProvider } from "../../src/llm/core.js"; // the provider-neutral core: no SDKs loaded
import { type Agent, type AgentOptions, createAgent, forkAgent, resumeAgent } from "../../src/loop/index.js";
import { forkSession, type Session } from "../../src/session/index.js";
import { JsonlSessionStore } from "../../src/store/index.js";
import { defineTool } from "../../src/tools/index.js";
import { FINAL_TEXT, type LoopScript, STEP_TEXT, SYSTEM, TOOL } from "../w2/script.js";
import type { PreparedHistory, StoredRunner, StoredRunnerFactory } from "./harness.js";
import { keelsonHistory } from "./history.js";

const noop = defineTool({
  name: TOOL,
  description: "does nothing",
  input: z.object({ n: z.number() }),
  // No side effects: the loop makes each finished step durable but need not flush before it runs.
  readOnly: true,
  execute: () => "ok",
});

function agentOptions(
  script: LoopScript,
  durability: "step" | "turn" = "step",
): Omit<AgentOptions, "store" | "session" | "sessionId"> {
  const provider = new ScriptedProvider([], {
    record: false,
    fallback: () => {
      const r = script.next();
      return r.kind === "final"
        ? { text: FINAL_TEXT }
        : { text: STEP_TEXT, toolCalls: [{ name: TOOL, arguments: { n: r.n } }] };
    },
  });
  return {
    provider,
    model: "scripted:bench",
    tools: [noop],
    system: SYSTEM,
    invariants: false,
    maxSteps: 100_000,
    durability,
  };
}

/** The prepared parent, checked (untimed) to derive exactly H messages. */
function preparedParent(history: PreparedHistory, id: string): Session {
  const parent = keelsonHistory(history.shape, history.messages, id);
  const derived = parent.deriveMessages().length;
  if (derived !== history.messages)
    throw new Error(`the prepared ${history.shape} session derives ${derived} messages, not ${history.messages}`);
  return parent;
}

/** Sends `prompt`, requires a completed (and, with a store, saved) turn, then disposes the agent. */
async function runAndDispose(agent: Agent, prompt: string): Promise<() => number> {
  const outcome = await agent.send(prompt);
  if (outcome.reason.kind !== "completed" || outcome.saved === false)
    throw new Error(`keelson turn ended ${JSON.stringify(outcome.reason)}, saved ${outcome.saved}`);
  await agent.dispose();
  return () => agent.session.deriveMessages().length;
}

export const keelsonInMemory: StoredRunnerFactory = async (history, script) => {
  const parent = preparedParent(history, "w2s-parent");
  const options = agentOptions(script);
  const runner: StoredRunner = {
    turn: (_index, prompt) => runAndDispose(createAgent({ ...options, session: forkSession(parent) }), prompt),
    async dispose() {},
  };
  return runner;
};

/** A temp JSONL store holding `ids` as copies of the prepared session (written untimed, released). */
async function storeWith(history: PreparedHistory, ids: readonly string[]): Promise<JsonlSessionStore> {
  const root = await mkdtemp(join(tmpdir(), "keelson-w2s-"));
  const store = new JsonlSessionStore({ root });
  const parent = preparedParent(history, "w2s-parent");
  for (const id of ids) {
    await store.create({ ...parent.header, id }, parent.events);
    await store.release(id);
    // Each copy's encoding is garbage once written: collect it, so the untimed preparation of N
    // copies does not set the process's peak RSS (which is meant to show the timed turns).
    globalThis.gc?.();
  }
  return store;
}

const closeAndRemove = async (store: JsonlSessionStore): Promise<void> => {
  await store.close();
  await rm(store.root, { recursive: true, force: true });
};

const jsonlResume =
  (durability: "step" | "turn"): StoredRunnerFactory =>
  async (history, script) => {
    const ids = Array.from({ length: history.sessions }, (_, i) => `w2s-${i}`);
    const store = await storeWith(history, ids);
    const options = agentOptions(script, durability);
    const runner: StoredRunner = {
      async turn(index, prompt) {
        const id = ids[index];
        if (id === undefined) throw new Error(`no prepared session ${index} (${ids.length} prepared)`);
        return runAndDispose(await resumeAgent(store, id, options), prompt);
      },
      dispose: () => closeAndRemove(store),
    };
    return runner;
  };

/** Resume with the default durability: a group commit (write + fdatasync) after every step. */
export const keelsonJsonlResume = jsonlResume("step");
/** The same with `durability: "turn"` (one flush at turn end): what per-step durability costs. */
export const keelsonJsonlResumeTurnDurability = jsonlResume("turn");

export const keelsonJsonlFork: StoredRunnerFactory = async (history, script) => {
  const store = await storeWith(history, ["w2s-parent"]);
  const options = agentOptions(script);
  const runner: StoredRunner = {
    turn: async (_index, prompt) => runAndDispose(await forkAgent(store, "w2s-parent", options), prompt),
    dispose: () => closeAndRemove(store),
  };
  return runner;
};
