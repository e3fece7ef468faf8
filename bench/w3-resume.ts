// W3 resume: what it costs to pick a stored session back up, for 10k- and 100k-event logs, each
// next to a raw line-by-line JSON.parse of the same file measured in the same run:
//   - load+repair+fold+derive+compose — the library path: JsonlSessionStore.load (writable, so
//     lock + crash repair), the header fold, the derived history and composeRequest over them;
//   - resumeAgent → first request — end to end: resumeAgent, then send() until the provider
//     receives the first request (prompt logged, prefix composed, `resume` header, boundary);
//     each repeat on a fresh copy of the file, since resuming appends to it.
// The foundation figures ride along: Session.append of the same events in memory, and writing
// them through the JSONL store with write+fsync at every turn end, as the loop does.
import { copyFile, mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { z } from "zod";
import { foldRequestHeader } from "../src/header/index.js";
import { type Provider, ScriptedProvider } from "../src/llm/index.js";
import { resumeAgent } from "../src/loop/index.js";
import { composeRequest } from "../src/reconstruct/index.js";
import { Session } from "../src/session/index.js";
import { JsonlSessionStore } from "../src/store/index.js";
import { defineTool } from "../src/tools/index.js";
import { baseHeader } from "../test/support/builders.js";
import { buildLog } from "./logs.js";
import { best, bestOf, gc, rawParse, type Timing } from "./measure.js";
import type { Cell } from "./table.js";
import { ratio } from "./table.js";
import type { WorkloadResult } from "./workload.js";

const SIZES = [10_000, 100_000];

interface Row {
  readonly size: number;
  readonly workload: string;
  readonly time: Timing;
  readonly raw: Timing;
}

const read = defineTool({
  name: "read",
  description: "the read tool",
  input: z.object({ path: z.string() }),
  execute: ({ path }) => path,
});

/** resumeAgent over a fresh copy of `file`, timed until the provider receives the first request. */
async function resumeToFirstRequest(
  file: string,
  id: string,
  dir: string,
  attempt: number,
): Promise<Timing & { messages: number }> {
  const root = join(dir, `resume-${attempt}`);
  await mkdir(root, { recursive: true });
  await copyFile(file, join(root, `${id}.jsonl`));
  let at = 0;
  let cpuAt = 0;
  let messages = 0;
  const inner = new ScriptedProvider([{ text: "ok" }], { record: false });
  const provider: Provider = {
    id: "capture",
    stream(request) {
      at = performance.now();
      const c = process.cpuUsage(c0);
      cpuAt = (c.user + c.system) / 1000;
      messages = request.messages.length;
      return inner.stream(request);
    },
  };
  const header = baseHeader();
  gc();
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const agent = await resumeAgent(new JsonlSessionStore({ root }), id, {
    provider,
    model: header.config.model,
    maxTokens: 1024,
    system: header.system!,
    tools: [read],
    invariants: false,
  });
  const outcome = await agent.send("continue");
  await agent.dispose();
  if (outcome.reason.kind !== "completed" || at === 0)
    throw new Error(`resume turn ended ${JSON.stringify(outcome.reason)}`);
  return { ms: at - t0, cpuMs: cpuAt, messages };
}

async function measureSize(target: number, dir: string): Promise<Row[]> {
  const source = buildLog({ events: target }, `w3-${target}`);
  const events = source.events;
  const size = events.length;
  const root = join(dir, `w3-${target}`);
  const store = new JsonlSessionStore({ root });
  await store.create(source.header);
  const file = store.fileOf(source.id);
  let flushes = 0;
  const write = await bestOf(async () => {
    let from = 0;
    for (let i = 0; i < events.length; i++) {
      if (events[i]!.type === "turn/end") {
        store.append(source.id, events.slice(from, i + 1));
        await store.flush(source.id);
        flushes++;
        from = i + 1;
      }
    }
  });
  await store.close();

  // Raw parse and the library load alternate, best of 5 each, so both see the same machine state.
  const raws: Timing[] = [];
  const loads: Timing[] = [];
  let composed = 0;
  for (let i = 0; i < 5; i++) {
    raws.push(await bestOf(async () => rawParse(await readFile(file, "utf8"))));
    const l = await bestOf(async () => {
      const reader = new JsonlSessionStore({ root });
      const { session } = await reader.load(source.id);
      const header = foldRequestHeader(session.events);
      if (header === undefined) throw new Error("no header in the log");
      const request = composeRequest(header, session.deriveMessages());
      await reader.release(source.id);
      return request.messages.length;
    });
    loads.push(l);
    composed = l.value;
  }
  const resumes: Timing[] = [];
  for (let i = 0; i < (target >= 100_000 ? 3 : 5); i++) {
    const r = await resumeToFirstRequest(file, source.id, dir, i);
    if (r.messages !== composed + 1)
      throw new Error(`resumed first request has ${r.messages} messages, expected ${composed + 1}`);
    resumes.push(r);
  }
  const append = await bestOf(() => {
    const s = Session.create({ id: "append-bench", createdAt: 0 });
    for (const e of events) s.append(e.type, e.data as never, e.surfaceOp);
    return s;
  }, 3);
  const raw = best(raws);
  return [
    { size, workload: "read + raw JSON.parse (baseline)", time: raw, raw },
    { size, workload: "load+repair+fold+derive+compose", time: best(loads), raw },
    { size, workload: "resumeAgent → first request", time: best(resumes), raw },
    { size, workload: "Session.append (foundation)", time: append, raw },
    { size, workload: `JSONL write+fsync, ${flushes} flushes (foundation)`, time: write, raw },
  ];
}

export async function runW3(dir: string): Promise<WorkloadResult> {
  const rows: Row[] = [];
  for (const size of SIZES) rows.push(...(await measureSize(size, dir)));
  const cells = rows.map((r): Cell[] => [
    r.workload,
    String(r.size),
    r.time.ms,
    ratio(r.time.ms, r.raw.ms),
    r.time.cpuMs,
    ratio(r.time.cpuMs, r.raw.cpuMs),
  ]);
  return {
    id: "W3",
    table: {
      title: "W3 resume — load, repair, fold, derive and the first request, vs raw JSON.parse of the same JSONL file",
      columns: ["workload", "events", "wall ms", "× raw", "CPU ms", "× raw"],
      rows: cells,
      notes: [
        "best of 5 (resume at 100k: best of 3); the resumed first request carries the whole derived history + the new prompt",
        "× raw = that figure ÷ the baseline row's for the same log; wall includes I/O and fsync, CPU (user + system, all threads) leaves out waiting for a busy core",
        "JSONL write is one timed run: its wall time is the fsync per turn end, i.e. the disk, not the codec",
      ],
    },
    data: rows,
  };
}
