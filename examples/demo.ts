// The end-to-end example `npm start` runs (until the `keelson` CLI lands), offline.
//
// An agent over a rule-based scripted model works in a scratch workspace: a session-prefix
// plugin contributes an AGENTS.md digest (request-only, logged on the header), a zod-typed
// `read` tool reads real files. Two turns run with a tool round trip and are persisted as JSONL;
// then a new loop instance resumes the session (logging a `resume` header) for a third turn.
// Finally the log is reloaded in a fresh store, verified, and every request is reconstructed
// and compared with what the model actually received.
import { mkdir, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { z } from "zod";
import { canonicalJson, type JsonValue } from "../src/json/index.js";
import { type ProviderRequest, ScriptedProvider, type ScriptedReply } from "../src/llm/index.js";
import { type AgentPlugin, createAgent, loggedPartOf, resumeAgent } from "../src/loop/index.js";
import { reconstructRequests, verifyLog } from "../src/reconstruct/index.js";
import { JsonlSessionStore } from "../src/store/index.js";
import { defineTool } from "../src/tools/index.js";

const home = process.env.KEELSON_HOME ?? (await mkdtemp(join(tmpdir(), "keelson-demo-")));
const workspace = join(home, "workspace");
await mkdir(workspace, { recursive: true });
await writeFile(join(workspace, "notes.txt"), "Ship the header codec.\nWrite the closing note.\n");
await writeFile(join(workspace, "AGENTS.md"), "# Project rules\nAnswer in one short paragraph.\n");

/** A rule-based model: a pure function of the request it is sent. */
function ruleBasedModel(request: ProviderRequest): ScriptedReply {
  const last = request.messages.at(-1);
  if (last?.role === "tool") {
    const body = last.content[0].content.map((p) => (p.type === "text" ? p.text : "")).join("");
    return { text: `The file says: ${body.trim().replace(/\n/g, " ")}` };
  }
  const asked = last?.role === "user" ? last.content.map((p) => (p.type === "text" ? p.text : "")).join(" ") : "";
  const file = /([\w.-]+\.(?:txt|md))/.exec(asked)?.[1];
  if (file !== undefined) return { text: `Let me read ${file}.`, toolCalls: [{ name: "read", arguments: { path: file } }] };
  return { text: "Glad to help." };
}

const read = defineTool({
  name: "read",
  description: "Read a UTF-8 text file from the workspace.",
  input: z.object({ path: z.string().describe("path relative to the workspace") }),
  execute: async ({ path }) => {
    const full = resolve(workspace, path);
    if (!full.startsWith(`${workspace}/`)) return { content: [{ type: "text", text: `refused: ${path} is outside the workspace` }], isError: true };
    return readFile(full, "utf8");
  },
});

/** Contributes the workspace's AGENTS.md once per loop instance, as a request-only opener. */
const agentsDigest: AgentPlugin = (host) => {
  host.on("agent/session-prefix", async (_agent, _seed, _signal, next) => {
    const rules = await readFile(join(workspace, "AGENTS.md"), "utf8");
    return [{ role: "user", content: [{ type: "text", text: `<system-reminder>\n${rules.trim()}\n</system-reminder>` }] }, ...(await next())];
  });
};

const provider = new ScriptedProvider([], { fallback: ruleBasedModel });
const store = new JsonlSessionStore({ root: join(home, "sessions") });
const options = { provider, model: "scripted:rule-based", cwd: workspace, system: "You are Keelson's demo agent in {{cwd}}.", tools: [read], plugins: [agentsDigest] };

const first = createAgent({ ...options, store });
const answers = [await first.send("What is in notes.txt?"), await first.send("Thanks!")];
const sessionId = first.session.id;
await first.dispose();

// A new loop instance (as after a restart): it recomposes the prefix and logs a `resume` header.
const second = await resumeAgent(store, sessionId, options);
answers.push(await second.send("And what does AGENTS.md say?"));
await second.dispose();
await store.close();

const reader = new JsonlSessionStore({ root: join(home, "sessions") });
const { session } = await reader.load(sessionId, { readOnly: true });
const report = verifyLog(session.events);
const rebuilt = reconstructRequests(session.events);
const identical = rebuilt.filter((r, i) => provider.requests[i] !== undefined && canonicalJson(r.request as unknown as JsonValue) === canonicalJson(loggedPartOf(provider.requests[i]!))).length;

console.log(`Keelson demo — session ${sessionId}`);
console.log(`log: ${reader.fileOf(sessionId)} (${session.length} events, ${report.turns} turns: ${answers.map((a) => a.reason.kind).join(", ")})`);
console.log(`headers: ${session.events.filter((e) => e.type === "request/header").map((e) => (e.data as { reason: string }).reason).join(", ")}`);
console.log(`verify: ${report.ok ? "clean" : report.issues.map((i) => `${i.code}: ${i.message}`).join("; ")}`);
console.log(`reconstruction: ${rebuilt.length} requests rebuilt from the log, ${identical}/${provider.requests.length} byte-identical to what the model received`);
for (const r of rebuilt) {
  const { messages, system, tools, ...config } = r.request;
  console.log(`\n── request ${r.turn}.${r.step} (boundary: step/start at seq ${r.stepStartSeq}) ──`);
  console.log(`config  ${JSON.stringify(config)}`);
  console.log(`system  ${JSON.stringify(system)}`);
  console.log(`tools   ${(tools ?? []).map((t) => t.name).join(", ")}`);
  const prefix = r.header.messagePrefix?.length ?? 0;
  messages.forEach((m, i) => {
    console.log(`${i < prefix ? "prefix " : "msg    "}[${i}] ${JSON.stringify(m)}`);
  });
}
await reader.close();
if (!report.ok || identical !== provider.requests.length || rebuilt.length !== provider.requests.length) process.exitCode = 1;
