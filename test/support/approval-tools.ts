// Tools that need a person's approval (#23), for the approval tests of every layer: each records
// what it actually ran in the `ran` list it is given, so a test can say which calls ran.
import { z } from "zod";
import { askUserTool } from "../../src/builtin-tools/index.js";
import { ScriptedProvider } from "../../src/llm/core.js";
import { type Agent, createAgent } from "../../src/loop/index.js";
import { defineTool } from "../../src/tools/index.js";

/** `deploy({ target })`: always needs approval; returns `deployed <target>`. */
export function deployTool(ran: string[]) {
  return defineTool({
    name: "deploy",
    description: "Deploys.",
    input: z.object({ target: z.string() }),
    needsApproval: true,
    execute: ({ target }) => {
      ran.push(target);
      return `deployed ${target}`;
    },
  });
}

/**
 * `ship({ what })`: needs approval, then — approved — asks where to before it runs (`Where should
 * <what> go?`, a string answer); records `<what> to <answer>` in `ran` and returns `shipped <what>
 * to <answer>`. Its question is asked only in the continuation the approval starts.
 */
export function shipTool(ran: string[] = []) {
  return defineTool({
    name: "ship",
    description: "Ships where the person says.",
    input: z.object({ what: z.string() }),
    needsApproval: true,
    question: ({ what }) => ({ message: `Where should ${what} go?` }),
    execute: ({ what }, { answer }) => {
      ran.push(`${what} to ${String(answer)}`);
      return `shipped ${what} to ${String(answer)}`;
    },
  });
}

/**
 * `<name>({})`: asks the person `message` (a string answer) while it runs, as an MCP server's
 * elicitation does (`ToolContext.ask`), then returns `<name> <answer>`.
 */
export function askingTool(name = "region", message = "Which region?") {
  return defineTool({
    name,
    description: "Asks the person while it runs.",
    input: z.object({}),
    readOnly: true,
    execute: async (_args, context) => `${name} ${String(await context.ask!({ message, schema: { type: "string" } }))}`,
  });
}

/** `write({ path })` (needs approval, allows edited arguments) and `bash({ command })` (needs approval unless it is `ls …`). */
export function writeAndBash(ran: string[]) {
  const write = defineTool({
    name: "write",
    description: "Writes a file.",
    input: z.object({ path: z.string() }),
    needsApproval: true,
    allowEditedArguments: true,
    execute: ({ path }) => {
      ran.push(`write ${path}`);
      return `wrote ${path}`;
    },
  });
  const bash = defineTool({
    name: "bash",
    description: "Runs a command.",
    input: z.object({ command: z.string() }),
    needsApproval: ({ command }) => (command.startsWith("ls") ? false : `runs ${command}`),
    execute: ({ command }) => {
      ran.push(`bash ${command}`);
      return `ran ${command}`;
    },
  });
  return { write, bash };
}

/** An agent whose model deploys to staging and prod and asks for a region in one step, then says "all done" (`ran` emptied first). */
export function pausingAgent(ran: string[]): Agent {
  ran.length = 0;
  const provider = new ScriptedProvider(
    [
      {
        toolCalls: [
          { name: "deploy", arguments: { target: "staging" } },
          { name: "deploy", arguments: { target: "prod" } },
          { name: "ask_user", arguments: { question: "Which region?" } },
        ],
      },
    ],
    { fallback: { text: "all done" } },
  );
  return createAgent({ provider, model: "m", tools: [deployTool(ran), askUserTool()] });
}
