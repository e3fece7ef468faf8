// W10 replay: `replaySession` of a stored 1,000-turn session — re-run turn by turn with the same
// code, the model and the tools answering from the log, every rebuilt request compared with the
// logged one — next to `verify` of the same session measured in the same run (what `keelson
// verify` does: the read-only load, `verifyLog`, and every request reconstructed and
// materialized). Goal (issue #27): replay under 2× verify.
// Two session shapes, each recorded by a real agent over a scripted model into a JSONL store:
//   - realistic — W3/W4's sizes: per turn a 200-byte prompt and three steps, two of them a `read`
//     call answered with 1.5 KB and 0.8 KB of text, answers of 300–400 bytes (3,000 requests);
//   - small — 10-byte prompts, a 200-byte result and a 100-byte answer per turn (2,000 requests):
//     the per-step cost of the loop is all there is, so this is the hard case for the ratio.
// Both figures are the best of fresh processes (bench/w10/worker.ts) run alternately (verify,
// replay, verify, …) so load on a shared box hits both alike and neither shapes the other's JIT; CPU time (user + system) is the robust figure, wall time rides along.
import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { ScriptedProvider, type ScriptedReply } from "../src/llm/index.js";
import { type AgentOptions, createAgent } from "../src/loop/index.js";
import type { Message } from "../src/messages/index.js";
import { JsonlSessionStore } from "../src/store/index.js";
import { defineTool } from "../src/tools/index.js";
import { filler } from "./logs.js";
import { best, type Timing } from "./measure.js";
import { ratio } from "./table.js";
import { KEELSON_FROM_DIST, type WorkloadResult } from "./workload.js";

const TURNS = 1000;
/** Fresh processes per side, alternating verify / replay, and runs in each (the first warms it up). */
const PROCESSES = 5;
const REPEATS_PER_PROCESS = 3;
const WORKER = join(import.meta.dirname, "w10", "worker.ts");
const run = promisify(execFile);

export interface Shape {
  readonly name: string;
  readonly prompt: (turn: number) => string;
  /** The model's answer given the tool results so far in the turn. */
  readonly reply: (results: number, n: number) => ScriptedReply;
  readonly result: (path: string) => string;
}

export const SHAPES: readonly Shape[] = [
  {
    name: "realistic",
    prompt: (turn) => filler(200, turn),
    reply: (results, n) =>
      results === 0
        ? { text: filler(300, n), toolCalls: [{ name: "read", arguments: { path: `src/file${n}.ts` } }] }
        : results === 1
          ? { text: filler(300, n), toolCalls: [{ name: "read", arguments: { path: `test/file${n}.ts` } }] }
          : { text: filler(400, n) },
    result: (path) => filler(path.startsWith("src/") ? 1500 : 800, path.length),
  },
  {
    name: "small",
    prompt: (turn) => `question ${turn}`,
    reply: (results, n) =>
      results === 0
        ? { toolCalls: [{ name: "read", arguments: { path: `f${n}.txt` } }] }
        : { text: `answer ${n} ${filler(100, n)}` },
    result: (path) => `contents of ${path}: ${filler(200, path.length)}`,
  },
];

/** Tool results since the last user message: how far the model is into the turn. */
function resultsInTurn(messages: readonly Message[]): number {
  let results = 0;
  for (let i = messages.length - 1; i >= 0 && messages[i]!.role !== "user"; i--)
    if (messages[i]!.role === "tool") results++;
  return results;
}

export function appOptions(shape: Shape): AgentOptions {
  let n = 0;
  const provider = new ScriptedProvider([], {
    record: false,
    fallback: (request) => shape.reply(resultsInTurn(request.messages), ++n),
  });
  const read = defineTool({
    name: "read",
    description: "Reads a file.",
    input: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
    readOnly: true,
    execute: ({ path }) => shape.result(String(path)),
  });
  return {
    provider,
    model: "anthropic:claude-sonnet-4-5",
    system: "You are a careful coding agent working in {{cwd}}.",
    tools: [read],
    cwd: "/work/project",
    durability: "turn",
    invariants: false,
  };
}

interface Row {
  readonly shape: string;
  readonly events: number;
  readonly requests: number;
  readonly verify: Timing;
  readonly replay: Timing;
}

/** Records a `TURNS`-turn session of `shape` into a JSONL store at `dir`: its id and event count. */
export async function recordSession(shape: Shape, dir: string): Promise<{ id: string; events: number }> {
  const agent = createAgent({ ...appOptions(shape), store: new JsonlSessionStore({ root: dir }) });
  for (let turn = 0; turn < TURNS; turn++) await agent.send(shape.prompt(turn));
  await agent.dispose();
  return { id: agent.session.id, events: agent.session.length };
}

/** One side of the pair in a fresh process (bench/w10/worker.ts): best of `repeats` runs. */
async function inProcess(
  shape: Shape,
  dir: string,
  id: string,
  what: "verify" | "replay",
): Promise<Timing & { requests: number }> {
  const config = JSON.stringify({ shape: shape.name, dir, id, what, repeats: REPEATS_PER_PROCESS });
  const { stdout } = await run(process.execPath, ["--expose-gc", ...KEELSON_FROM_DIST, WORKER, config], {
    cwd: join(import.meta.dirname, ".."),
    maxBuffer: 1024 * 1024,
  });
  return JSON.parse(stdout.trim().split("\n").at(-1) ?? "") as Timing & { requests: number };
}

async function measure(shape: Shape, dir: string): Promise<Row> {
  const { id, events } = await recordSession(shape, dir);
  const verifies: Timing[] = [];
  const replays: Timing[] = [];
  let requests = 0;
  for (let i = 0; i < PROCESSES; i++) {
    const v = await inProcess(shape, dir, id, "verify");
    const r = await inProcess(shape, dir, id, "replay");
    if (r.requests !== v.requests)
      throw new Error(`W10: replay compared ${r.requests} requests, verify rebuilt ${v.requests}`);
    requests = v.requests;
    verifies.push(v);
    replays.push(r);
  }
  return { shape: shape.name, events, requests, verify: best(verifies), replay: best(replays) };
}

export async function runW10(): Promise<WorkloadResult> {
  const rows: Row[] = [];
  for (const shape of SHAPES) {
    const dir = await mkdtemp(join(tmpdir(), "keelson-w9-"));
    try {
      rows.push(await measure(shape, dir));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
  const goal = (r: Row): string => (r.replay.cpuMs < 2 * r.verify.cpuMs ? "met" : "MISSED");
  return {
    id: "W10",
    table: {
      title: `W10 replay — replaySession of a ${TURNS.toLocaleString("en-US")}-turn session vs verify of it (load + verifyLog + every request reconstructed)`,
      columns: [
        "session",
        "events",
        "requests",
        "verify CPU ms",
        "replay CPU ms",
        "× verify",
        "verify wall ms",
        "replay wall ms",
        "× verify",
        "goal < 2× (CPU)",
      ],
      rows: rows.map((r) => [
        r.shape,
        String(r.events),
        String(r.requests),
        r.verify.cpuMs,
        r.replay.cpuMs,
        ratio(r.replay.cpuMs, r.verify.cpuMs),
        r.verify.ms,
        r.replay.ms,
        ratio(r.replay.ms, r.verify.ms),
        goal(r),
      ]),
      notes: [
        "replay = load (read-only) + the recorded log indexed + every turn re-run by the loop (model and tools answering from the log) + every request compared; each replay checked identical",
        "realistic: W3/W4 sizes (1.5 KB and 0.8 KB tool results, 300–400 B answers, 3 steps a turn); small: 200 B results, 2 steps a turn — the loop's per-step cost alone",
        `best of ${PROCESSES} fresh processes per side × ${REPEATS_PER_PROCESS} runs each, verify and replay processes alternating (one process for both let the replays slow the verifies after them); CPU = user + system of the process`,
      ],
    },
    data: rows,
  };
}
