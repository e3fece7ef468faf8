// W1 cache economics: the same scripted workload — 3 loop instances (start, resume, resume) ×
// 10 turns × up to 3 steps, with a ~3k-token opener — on the emulator's Anthropic-style cache
// model, with the opener placed four ways:
//   keelson  — the session prefix (request-only, frozen per instance, logged on the header);
//   (a)      — inside a system prompt re-rendered every step with a timestamp;
//   (b)      — as a per-step reminder appended at the tail of every request, not logged;
//   (c)      — as a durable history opener injected once at session start;
// and Keelson once more with mid-session compaction (keelson+compaction).
// Tabled: cache-read share, billed input-equivalent tokens (input + 1.25×write + 0.1×read),
// cost, and for Keelson its reads as a share of the theoretical maximum (every token of the
// previous request re-read; goal ≥ 0.99).
import { z } from "zod";
import { createCompaction } from "../src/compaction/index.js";
import { EmulatorProvider, type EmulatorRequest, SimulatedClock } from "../src/emulator/index.js";
import { DEFAULT_MODELS, type Provider, type ScriptedReply, usageCost } from "../src/llm/index.js";
import type { Message, Usage } from "../src/messages/index.js";
import { type Agent, type AgentOptions, createAgent } from "../src/loop/index.js";
import { defineTool } from "../src/tools/index.js";
import { pct, ratio } from "./table.js";
import type { WorkloadResult } from "./workload.js";

const INSTANCES = 3;
const TURNS = 10;
const MODEL = "claude-sonnet-4-5";
const pricing = DEFAULT_MODELS.find((m) => m.id === MODEL)!.pricing;

const WORDS = [
  "harness",
  "session",
  "prefix",
  "cache",
  "header",
  "delta",
  "replay",
  "audit",
  "fork",
  "resume",
  "tool",
  "step",
];
const prose = (words: number, seed: number): string =>
  Array.from({ length: words }, (_, i) => WORDS[(seed * 7 + i * 13) % WORDS.length]).join(" ");
/** ~3k tokens: a skills catalog the opener carries. */
const OPENER = `<system-reminder>\nAvailable skills:\n${Array.from({ length: 60 }, (_, i) => `- skill-${i}: ${prose(40, i)}`).join("\n")}\n</system-reminder>`;

const isSummaryCall = (messages: readonly Message[]): boolean => /^Write a checkpoint/.test(userText(messages.at(-1)));
const userText = (m: Message | undefined): string =>
  m?.role === "user" ? m.content.map((b) => (b.type === "text" ? b.text : "")).join("") : "";

/** Deterministic model: turn N makes N % 3 tool calls (one per step), then answers. */
function workloadModel(clock: SimulatedClock) {
  return (request: EmulatorRequest): ScriptedReply => {
    clock.advance(5_000);
    const messages = request.messages;
    if (isSummaryCall(messages))
      return {
        text: `<checkpoint>\nIntent: work through the tasks.\nCurrent state: ${prose(60, messages.length)}\n</checkpoint>`,
        usage: { outputTokens: 90 },
      };
    let lastTask = -1;
    for (let i = messages.length - 1; i >= 0; i--) {
      if (/^Task \d+/.test(userText(messages[i]))) {
        lastTask = i;
        break;
      }
    }
    const task = Number(/^Task (\d+)/.exec(userText(messages[lastTask]))?.[1] ?? 0);
    const toolResults = messages.slice(lastTask + 1).filter((m) => m.role === "tool").length;
    if (toolResults < task % 3)
      return {
        text: `Reading part ${toolResults}.`,
        toolCalls: [{ name: "read", arguments: { path: `file-${task}-${toolResults}.txt` } }],
        usage: { outputTokens: 20 },
      };
    return { text: `Task ${task} done. ${prose(30, task)}`, usage: { outputTokens: 60 } };
  };
}

const read = defineTool({
  name: "read",
  description: "Read a file.",
  input: z.object({ path: z.string() }),
  execute: ({ path }) => `${path}:\n${prose(220, path.length)}`,
});

type Layout = "keelson" | "keelson+compaction" | "a: system+timestamp" | "b: tail reminder" | "c: history opener";

interface Outcome {
  readonly layout: Layout;
  readonly usages: readonly Usage[];
  /** Index (in usages) of summary calls. */
  readonly summaries: readonly number[];
}

async function run(layout: Layout): Promise<Outcome> {
  const clock = new SimulatedClock();
  const emulator = new EmulatorProvider({
    model: workloadModel(clock),
    cacheStyle: "anthropic",
    clock,
    minCacheableTokens: 1024,
  });
  const reminder: Message = { role: "user", content: [{ type: "text", text: OPENER }] };
  const provider: Provider =
    layout === "b: tail reminder"
      ? { id: "tail", stream: (request) => emulator.stream({ ...request, messages: [...request.messages, reminder] }) }
      : emulator;
  const options = (): AgentOptions => ({
    provider,
    model: MODEL,
    system: "You are a coding agent.",
    tools: [read],
    invariants: false,
    ...(layout === "keelson+compaction"
      ? {
          compaction: createCompaction({
            contextWindow: 12_000,
            thresholdRatio: 0.75,
            keepRecentTokens: 2_000,
            summaryMaxTokens: 400,
          }),
        }
      : {}),
    plugins: [
      (host) => {
        if (layout === "keelson" || layout === "keelson+compaction") {
          host.on("agent/session-prefix", async (_payload, next) => [reminder, ...(await next())]);
        }
        if (layout === "a: system+timestamp") {
          host.on("system-prompt/assemble", async (_payload, next) => [
            ...(await next()),
            { name: "opener", order: 10, text: `${OPENER}\nCurrent time: ${new Date(clock.now()).toISOString()}` },
          ]);
        }
        return undefined;
      },
    ],
  });
  let agent: Agent | undefined;
  for (let instance = 0; instance < INSTANCES; instance++) {
    agent = instance === 0 ? createAgent(options()) : createAgent({ ...options(), session: agent!.session });
    if (instance === 0 && layout === "c: history opener") await agent.inject(OPENER);
    for (let turn = 0; turn < TURNS; turn++) {
      const outcome = await agent.send(`Task ${instance * TURNS + turn + 1}: continue.`);
      if (outcome.reason.kind !== "completed")
        throw new Error(`${layout}: turn ended ${JSON.stringify(outcome.reason)}`);
    }
    await agent.dispose();
    clock.advance(60_000); // a restart, well inside the 5-minute TTL
  }
  const summaries = emulator.requests.flatMap((r, i) => (isSummaryCall(r.messages) ? [i] : []));
  return { layout, usages: emulator.usages, summaries };
}

interface Row {
  readonly layout: Layout;
  readonly requests: number;
  readonly promptTokens: number;
  readonly readShare: number;
  readonly billedInputEquivalent: number;
  readonly costUsd: number;
  readonly shareOfTheoreticalMax: number;
}

export async function runW1(): Promise<WorkloadResult> {
  const rows: Row[] = [];
  const compaction: string[] = [];
  for (const layout of [
    "keelson",
    "keelson+compaction",
    "a: system+timestamp",
    "b: tail reminder",
    "c: history opener",
  ] as const) {
    const { usages, summaries } = await run(layout);
    for (const i of summaries) {
      const s = usages[i]!;
      const after = usages[i + 1];
      const share = s.cacheReadTokens / (s.inputTokens + s.cacheReadTokens + s.cacheWriteTokens);
      compaction.push(
        `keelson+compaction summary call #${i + 1}: cache-read share ${pct(share)} of ${s.inputTokens + s.cacheReadTokens + s.cacheWriteTokens} input tokens; next request re-paid ${after ? after.inputTokens + after.cacheWriteTokens : 0} tokens (write+uncached), read ${after?.cacheReadTokens ?? 0}`,
      );
    }
    const sum = (f: (u: Usage) => number): number => usages.reduce((n, u) => n + f(u), 0);
    const input = sum((u) => u.inputTokens);
    const read = sum((u) => u.cacheReadTokens);
    const write = sum((u) => u.cacheWriteTokens);
    const total = input + read + write;
    // Theoretical maximum reads: every request re-reads all of the previous request's prompt.
    const maxReads = usages
      .slice(1)
      .reduce((n, _u, i) => n + usages[i]!.inputTokens + usages[i]!.cacheReadTokens + usages[i]!.cacheWriteTokens, 0);
    rows.push({
      layout,
      requests: usages.length,
      promptTokens: total,
      readShare: read / total,
      billedInputEquivalent: input + 1.25 * write + 0.1 * read,
      costUsd: usages.reduce((n, u) => n + usageCost(u, pricing), 0),
      shareOfTheoreticalMax: read / maxReads,
    });
  }
  const keelson = rows[0]!;
  return {
    id: "W1",
    table: {
      title: `W1 cache economics — ${INSTANCES} instances × ${TURNS} turns × ≤3 steps, ~3k-token opener, Anthropic-style cache (${MODEL} pricing)`,
      columns: [
        "layout",
        "requests",
        "prompt tokens",
        "read share",
        "reads / max",
        "billed in-eq",
        "× keelson",
        "cost $",
        "× keelson",
      ],
      rows: rows.map((r) => [
        r.layout,
        String(r.requests),
        String(r.promptTokens),
        pct(r.readShare),
        r.shareOfTheoreticalMax.toFixed(4),
        String(Math.round(r.billedInputEquivalent)),
        ratio(r.billedInputEquivalent, keelson.billedInputEquivalent),
        r.costUsd.toFixed(4),
        ratio(r.costUsd, keelson.costUsd),
      ]),
      notes: [
        "billed in-eq = input + 1.25 × cache write + 0.1 × cache read; reads / max = cache reads ÷ (every request re-reading all of the previous one)",
        `keelson reads / theoretical maximum: ${keelson.shareOfTheoreticalMax.toFixed(4)} (goal ≥ 0.99); with compaction the maximum is unreachable by design (a summary replaces history)`,
        ...compaction,
      ],
    },
    data: rows,
  };
}
