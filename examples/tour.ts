// The README's 5-minute tour, runnable as is: `node --import tsx examples/tour.ts`.
// An agent on the built-in emulator (through the real Anthropic SDK: no key, no network) with
// one tool and one session-prefix contributor; then a new loop instance resumes the session.
import { z } from "zod";
import {
  AnthropicProvider,
  type AgentPlugin,
  createAgent,
  defineTool,
  JsonlSessionStore,
  reconstructRequests,
  resumeAgent,
  startEmulator,
} from "keelson";

const emulator = await startEmulator(); // swap for `new AnthropicProvider()` with $ANTHROPIC_API_KEY set
const provider = new AnthropicProvider({ apiKey: "emulator", baseURL: emulator.anthropicBaseURL });
const store = new JsonlSessionStore({ root: process.env.TOUR_SESSIONS ?? "./.keelson-tour" });

// 1. A tool: a zod schema, and an execute function.
const readTool = defineTool({
  name: "read",
  description: "Read a file (a toy: it answers with the word count)",
  input: z.object({ path: z.string() }),
  execute: ({ path }) => `${path}: 42 words`,
});

// 2. A session-prefix contributor: request-only opener messages, composed once per loop
//    instance, logged on the request header, placed after the system prompt and before history.
const conventions: AgentPlugin = (host) =>
  host.on("agent/session-prefix", async (_payload, next) => [
    {
      role: "user",
      content: [{ type: "text", text: "<system-reminder>House style: answer in one line.</system-reminder>" }],
    },
    ...(await next()),
  ]);

// 3. An agent: every request it sends is a pure function of its session log.
const options = {
  provider,
  model: "emulator:emulator-anthropic",
  system: "You are a concise assistant.",
  tools: [readTool],
  plugins: [conventions],
};
const agent = createAgent({ ...options, store });
const first = await agent.send("How long is notes.txt?");
console.log("turn", first.turn, first.reason.kind, "·", first.text); // the turn's final assistant text
const id = agent.session.id;
await agent.dispose(); // flushes the log and releases the session

// 4. Resume: a new loop instance over the stored log (the prefix is composed again, once).
const resumed = await resumeAgent(store, id, options);
const second = await resumed.send("Thanks!");
console.log("turn", second.turn, second.reason.kind);

// 5. Every request is reconstructable from the log alone — prefix included, history without it.
const requests = reconstructRequests(resumed.session.events);
console.log(
  `${requests.length} requests reconstructed; the prefix is on the header:`,
  requests.at(-1)?.header.messagePrefix?.length,
  "message(s)",
);
await resumed.dispose();
await emulator.close();
