// Child process for the tools suite: the built-in tools (read, ls, glob, grep, write, edit) over
// a Workspace at <root> (plus the extra allowed roots), driven through executeToolCall one call
// at a time. For each call it measures what the parent cannot see from outside: the elapsed
// time, the longest gap in a 10 ms event-loop heartbeat, and the growth of resident memory.
// Every call runs under an abort signal and a pipeline timeout of CALL_TIMEOUT_MS; grep under
// its own deadline of GREP_DEADLINE_MS, or the request's grepDeadlineMs (tools-protocol.ts).
//
// Usage: node --import tsx tools-child.ts <root> [allowed root ...]
// stdin: one ToolRequest as JSON per line. stdout: `ready`, then `answer <ToolAnswer JSON>` per
// request, in order. Exits when stdin closes.
import { createInterface } from "node:readline";
import { builtinToolDefinitions, grepTool, Workspace } from "../src/builtin-tools/index.js";
import { HookBus } from "../src/hooks/index.js";
import { executeToolCall, type ToolHooks, ToolRegistry } from "../src/tools/index.js";
import {
  CALL_TIMEOUT_MS,
  GREP_DEADLINE_MS,
  HEARTBEAT_MS,
  OUTPUT_CAP,
  type ToolAnswer,
  type ToolRequest,
} from "./tools-protocol.js";

const [root, ...allow] = process.argv.slice(2);
if (root === undefined) {
  process.stderr.write("usage: tools-child.ts <root> [allowed root ...]\n");
  process.exit(1);
}
const workspace = new Workspace({ root, allow });
const registries = new Map<number, ToolRegistry>();

/** The tools, with grep stopped after `grepDeadlineMs`. */
function registryFor(grepDeadlineMs: number): ToolRegistry {
  let registry = registries.get(grepDeadlineMs);
  if (registry === undefined) {
    registry = new ToolRegistry();
    for (const tool of builtinToolDefinitions({ workspace, outputCap: OUTPUT_CAP }, [
      "read",
      "ls",
      "glob",
      "write",
      "edit",
    ]))
      registry.register(tool);
    registry.register(grepTool({ workspace, outputCap: OUTPUT_CAP, deadlineMs: grepDeadlineMs }));
    registries.set(grepDeadlineMs, registry);
  }
  return registry;
}
const hooks = new HookBus<ToolHooks>({ report: () => {} });

async function run({ id, tool, args, grepDeadlineMs = GREP_DEADLINE_MS }: ToolRequest): Promise<ToolAnswer> {
  const baseRss = process.memoryUsage.rss();
  let peakRss = baseRss;
  let maxGapMs = 0;
  let last = performance.now();
  const beat = (): void => {
    const now = performance.now();
    maxGapMs = Math.max(maxGapMs, now - last);
    last = now;
    peakRss = Math.max(peakRss, process.memoryUsage.rss());
  };
  const heartbeat = setInterval(beat, HEARTBEAT_MS);
  const started = performance.now();
  try {
    const outcome = await executeToolCall({
      registry: registryFor(grepDeadlineMs),
      hooks,
      call: {
        callId: `call-${id}`,
        name: tool,
        rawArguments: JSON.stringify(args),
        turn: 1,
        step: 1,
        sessionId: "tools",
      },
      signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
      timeoutMs: CALL_TIMEOUT_MS,
    });
    const elapsedMs = performance.now() - started;
    beat();
    const code = outcome.meta?.code;
    return {
      id,
      elapsedMs,
      maxGapMs,
      rssGrowthMb: (peakRss - baseRss) / (1024 * 1024),
      isError: outcome.isError,
      ...(outcome.error === undefined ? {} : { error: outcome.error }),
      ...(typeof code === "string" ? { code } : {}),
      text: outcome.content.map((part) => (part.type === "text" ? part.text : `[${part.type}]`)).join(""),
    };
  } finally {
    clearInterval(heartbeat);
  }
}

const input = createInterface({ input: process.stdin });
process.stdout.write("ready\n");
for await (const line of input) {
  const answer = await run(JSON.parse(line) as ToolRequest);
  process.stdout.write(`answer ${JSON.stringify(answer)}\n`);
}
process.exit(0);
