// Loop overhead benchmark: the same N-step tool loop on a zero-latency scripted model, over
// histories of 100, 1k and 10k messages, with no store and with the JSONL store. Printed next to
// a naive baseline measured in the same run: a hand-written loop that keeps a plain message array
// and JSON.stringify's the whole request every step (what most harnesses do to send).
// Goal: Keelson's per-step cost is flat in history length (10k/1k ≤ 1.5).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { z } from "zod";
import { defineTool } from "../src/tools/index.js";
import { createAgent } from "../src/loop/index.js";
import { ScriptedProvider } from "../src/llm/index.js";
import type { Message } from "../src/messages/index.js";
import { JsonlSessionStore } from "../src/store/index.js";
import { LogDriver, newSession } from "../test/support/builders.js";

const STEPS = 400;
const REPEATS = 3;
const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);

/** A session whose derived history has about `messages` messages (4 per step: user…). */
function historyOf(messages: number, id: string) {
  const driver = new LogDriver(newSession(id));
  while (driver.session.deriveMessages().length < messages) {
    driver.turn({ prompt: "continue the task", steps: [{ text: "reading", toolCalls: [{ name: "noop", result: "ok ".repeat(40) }] }, { text: "done ".repeat(20) }] });
  }
  return driver.session;
}

const noop = defineTool({ name: "noop", description: "does nothing", input: z.object({ n: z.number() }), execute: () => "ok" });

/** One turn of STEPS steps: STEPS-1 tool calls, then a final answer. */
function provider(): ScriptedProvider {
  let calls = 0;
  return new ScriptedProvider([], {
    record: false, // a real provider keeps nothing; recording would retain every request's history
    fallback: () => (++calls % STEPS === 0 ? { text: "finished" } : { text: "step", toolCalls: [{ name: "noop", arguments: { n: calls } }] }),
  });
}

async function keelson(messages: number, withStore: boolean): Promise<number> {
  const root = withStore ? await mkdtemp(join(tmpdir(), "keelson-loop-bench-")) : undefined;
  const store = root === undefined ? undefined : new JsonlSessionStore({ root });
  const session = historyOf(messages, `loop-${messages}-${withStore ? "store" : "mem"}`);
  const agent = createAgent({ provider: provider(), model: "scripted:bench", session, tools: [noop], system: "You are a benchmark.", invariants: false, maxSteps: STEPS + 1, ...(store === undefined ? {} : { store }) });
  await agent.send("warm up"); // first instance request + store creation
  gc();
  const t0 = performance.now();
  const outcome = await agent.send("run the loop");
  const ms = performance.now() - t0;
  if (outcome.reason.kind !== "completed") throw new Error(`bench turn ended ${JSON.stringify(outcome.reason)}`);
  await agent.dispose();
  if (root !== undefined) await rm(root, { recursive: true, force: true });
  return ms / STEPS;
}

/** The naive baseline: plain array history, whole request serialized every step. */
function naive(messages: number): number {
  const history: Message[] = historyOf(messages, `naive-${messages}`).deriveMessages();
  gc();
  const t0 = performance.now();
  let bytes = 0;
  for (let step = 0; step < STEPS; step++) {
    bytes += JSON.stringify({ model: "m", system: "You are a benchmark.", messages: history }).length;
    history.push({ role: "assistant", content: [{ type: "tool-call", callId: `c${step}`, name: "noop", arguments: "{}" }] });
    history.push({ role: "tool", content: [{ type: "tool-result", callId: `c${step}`, content: [{ type: "text", text: "ok" }], isError: false }] });
  }
  if (bytes === 0) throw new Error("unreachable");
  return (performance.now() - t0) / STEPS;
}

export async function runLoopBench(): Promise<Record<string, number>[]> {
  const rows: Record<string, number>[] = [];
  for (const messages of [100, 1_000, 10_000]) {
    // Best of REPEATS runs each: a 400-step turn is short enough for GC and scheduling noise to matter.
    const best = async (f: () => Promise<number> | number): Promise<number> => {
      let min = Number.POSITIVE_INFINITY;
      for (let i = 0; i < REPEATS; i++) min = Math.min(min, await f());
      return min;
    };
    rows.push({ messages, keelsonMs: await best(() => keelson(messages, false)), keelsonStoreMs: await best(() => keelson(messages, true)), naiveMs: await best(() => naive(messages)) });
  }
  console.log(`\nloop overhead: ms per step (best of ${REPEATS}), ${STEPS}-step tool loop on a zero-latency scripted model`);
  console.log("history".padEnd(10), "keelson".padStart(9), "+jsonl".padStart(9), "naive".padStart(9), "naive/keelson".padStart(14));
  for (const r of rows) {
    console.log(String(r.messages).padEnd(10), r.keelsonMs!.toFixed(3).padStart(9), r.keelsonStoreMs!.toFixed(3).padStart(9), r.naiveMs!.toFixed(3).padStart(9), (r.naiveMs! / r.keelsonMs!).toFixed(2).padStart(14));
  }
  const [, k1, k10] = rows;
  console.log(`10k/1k ratio: keelson ${(k10!.keelsonMs! / k1!.keelsonMs!).toFixed(2)}, +jsonl ${(k10!.keelsonStoreMs! / k1!.keelsonStoreMs!).toFixed(2)}, naive ${(k10!.naiveMs! / k1!.naiveMs!).toFixed(2)} (goal for keelson: ≤ 1.5)`);
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) await runLoopBench();
