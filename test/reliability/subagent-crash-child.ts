// The subagent crash test's writer (test/reliability/subagent-crash.test.ts): a parent agent on
// the JSONL store at argv[2] delegates to subagents (kill point argv[3]) and blocks where the
// test kills it — inside a child's tool with side effects, inside a child's second model call, or with
// two children running at once, each inside its tool. It prints `parent <id>`, then `blocked`
// once every child is at its kill point; nothing else ever ends it.
import { z } from "zod";
import { ScriptedProvider } from "../../src/llm/index.js";
import { createAgent, subagentTool } from "../../src/loop/index.js";
import { JsonlSessionStore } from "../../src/store/index.js";
import { defineTool } from "../../src/tools/index.js";

const [root, point] = process.argv.slice(2) as [string, "child-tool" | "child-model" | "two-children"];
const children = point === "two-children" ? 2 : 1;
let blocked = 0;
const block = (): Promise<never> => {
  if (++blocked === children) process.stdout.write("blocked\n");
  return new Promise<never>(() => {});
};

/** A tool with side effects (so the child's log is durable before it runs) that never returns. */
const stall = defineTool({
  name: "stall",
  description: "Changes the world, slowly.",
  input: z.object({ what: z.string() }),
  execute: () => block(),
});

/** A quick tool: the child's first step ends (and is flushed) before its second model call. */
const note = defineTool({
  name: "note",
  description: "Notes something.",
  input: z.object({ what: z.string() }),
  execute: ({ what }) => `noted ${what}`,
});

const child = new ScriptedProvider([], {
  fallback: (request) => {
    const ran = request.messages.some((m) => m.role === "tool");
    if (point === "child-model") return ran ? block() : { toolCalls: [{ name: "note", arguments: { what: "x" } }] };
    return ran ? { text: "done" } : { toolCalls: [{ name: "stall", arguments: { what: "x" } }] };
  },
});
const parent = new ScriptedProvider([
  {
    toolCalls: Array.from({ length: children }, (_, i) => ({ name: "research", arguments: { task: `task ${i}` } })),
  },
]);
const store = new JsonlSessionStore({ root });
const agent = createAgent({
  provider: parent,
  model: "scripted:parent",
  tools: [stall, note, subagentTool({ name: "research", description: "Researches.", agent: { provider: child } })],
  store,
});
process.stdout.write(`parent ${agent.session.id}\n`);
void agent.send("Delegate.");
