// The foundation's end-to-end example (what `npm start` runs until the CLI lands).
//
// It drives a Session through two turns with a real tool round trip (the `read` tool reads a
// file from a scratch workspace), records the request header per step as the loop will,
// persists the log as JSONL, reloads it in a fresh store, verifies it, and reconstructs and
// prints every request the "model" was sent. The model here is a small rule-based responder
// that only sees the composed request — the same request reconstruction recovers from the log.
import { mkdir, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type EpochHeader, HeaderWriter } from "../src/header/index.js";
import type { AssistantContent, Message } from "../src/messages/index.js";
import { canonicalJson, type JsonValue } from "../src/json/index.js";
import { composeRequest, type LoopRequest, reconstructRequests, verifyLog } from "../src/reconstruct/index.js";
import { Session } from "../src/session/index.js";
import { JsonlSessionStore, persistSession } from "../src/store/index.js";

const home = process.env.KEELSON_HOME ?? (await mkdtemp(join(tmpdir(), "keelson-demo-")));
const workspace = join(home, "workspace");
await mkdir(workspace, { recursive: true });
await writeFile(join(workspace, "notes.txt"), "Ship the header codec.\nWrite the closing note.\n");

const header: EpochHeader = {
  config: { model: "demo:rule-based", maxTokens: 512 },
  system: "You are Keelson's demo agent.\nUse the read tool to look at files before answering.",
  tools: [
    {
      name: "read",
      description: "Read a UTF-8 text file from the workspace.",
      inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"], additionalProperties: false },
    },
  ],
};

/** A rule-based stand-in for a model: a pure function of the request it is sent. */
function respond(request: LoopRequest): AssistantContent[] {
  const last = request.messages.at(-1) as Message;
  if (last.role === "tool") {
    const body = last.content[0].content.map((p) => (p.type === "text" ? p.text : "")).join("");
    return [{ type: "text", text: `The notes say:\n${body.trim()}` }];
  }
  const asked = last.content.map((p) => (p.type === "text" ? p.text : "")).join(" ");
  const file = /([\w.-]+\.txt)/.exec(asked)?.[1];
  if (file !== undefined) {
    return [
      { type: "text", text: `Let me read ${file}.` },
      { type: "tool-call", callId: "", name: "read", arguments: JSON.stringify({ path: file }) },
    ];
  }
  return [{ type: "text", text: "Glad to help." }];
}

async function readTool(args: string): Promise<{ text: string; isError: boolean }> {
  try {
    const { path } = JSON.parse(args) as { path: string };
    const full = resolve(workspace, path);
    if (!full.startsWith(`${workspace}/`)) return { text: `refused: ${path} is outside the workspace`, isError: true };
    return { text: await readFile(full, "utf8"), isError: false };
  } catch (e) {
    return { text: String(e), isError: true };
  }
}

const store = new JsonlSessionStore({ root: join(home, "sessions") });
const session = Session.create({ cwd: workspace });
await store.create(session.header);
const persistence = persistSession(session, store);
const writer = new HeaderWriter(session);
let calls = 0;
/** Every request the "model" was sent, serialized canonically, to compare with reconstruction. */
const sent: string[] = [];

async function runTurn(prompt: string): Promise<void> {
  const turn = session.lastTurn + 1;
  session.append("turn/start", { turn, trigger: "send" });
  session.append("user/message", { content: [{ type: "text", text: prompt }], source: "user" });
  for (let step = 1; ; step++) {
    const history = session.deriveMessages(); // the boundary: history, then step/start
    session.append("step/start", { turn, step });
    writer.record(header);
    const request = composeRequest(header, history);
    sent.push(canonicalJson(request as unknown as JsonValue));
    const content = respond(request).map((b) => (b.type === "tool-call" ? { ...b, callId: `call_${++calls}` } : b));
    session.append("assistant/message", { turn, step, content, usage: { inputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 0 } });
    const toolCalls = content.filter((b) => b.type === "tool-call");
    for (const call of toolCalls) {
      session.append("tool/call", { turn, step, callId: call.callId, name: call.name, arguments: call.arguments });
      const result = await readTool(call.arguments);
      session.append("tool/result", { turn, step, callId: call.callId, content: [{ type: "text", text: result.text }], isError: result.isError });
    }
    session.append("step/end", { turn, step });
    if (toolCalls.length === 0) break;
  }
  session.append("turn/end", { turn, reason: { kind: "completed" } });
  await persistence.flush();
}

await runTurn("What is in notes.txt?");
await runTurn("Thanks!");
await store.close();

// A fresh store, as a new process would open it.
const reader = new JsonlSessionStore({ root: join(home, "sessions") });
const { session: loaded } = await reader.load(session.id, { readOnly: true });
const report = verifyLog(loaded.events);
const requests = reconstructRequests(loaded.events);

console.log(`Keelson foundation demo — session ${loaded.id}`);
console.log(`log: ${reader.fileOf(loaded.id)} (${loaded.length} events, ${report.turns} turns)`);
console.log(`verify: ${report.ok ? "clean" : report.issues.map((i) => `${i.code}: ${i.message}`).join("; ")}`);
const matches = requests.filter((r, i) => canonicalJson(r.request as unknown as JsonValue) === sent[i]).length;
console.log(`reconstruction: ${requests.length} requests rebuilt from the log, ${matches}/${sent.length} byte-identical to what was sent`);
for (const r of requests) {
  const { messages, system, tools, ...config } = r.request;
  console.log(`\n── request ${r.turn}.${r.step} (boundary: step/start at seq ${r.stepStartSeq}) ──`);
  console.log(`config  ${JSON.stringify(config)}`);
  console.log(`system  ${JSON.stringify(system)}`);
  console.log(`tools   ${(tools ?? []).map((t) => t.name).join(", ")}`);
  messages.forEach((m, i) => {
    console.log(`msg[${i}] ${JSON.stringify(m)}`);
  });
}
const final = loaded.deriveMessages().at(-1);
console.log(`\nlast message: ${JSON.stringify(final)}`);
await reader.close();
if (!report.ok || matches !== sent.length || requests.length !== sent.length) process.exitCode = 1;
