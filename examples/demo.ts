// The library-level end-to-end example (`node --import tsx examples/demo.ts`; `npm start` runs
// `keelson demo`, src/cli/demo-command.ts): offline, on the built-in provider emulator, through
// the real Anthropic SDK, using the library API directly.
//
// The emulator serves the Anthropic Messages API on 127.0.0.1 with its rule-based model and an
// Anthropic-style prompt-cache model. An agent works in a scratch workspace: a session-prefix
// plugin contributes an AGENTS.md digest (request-only, logged on the header) and a zod-typed
// `read` tool reads real files. Two turns run and are persisted as JSONL; then a new loop
// instance resumes the session (logging a `resume` header) for a third turn. Finally the log is
// reloaded, verified, every request is reconstructed, re-serialized with the adapter and
// compared byte-for-byte (canonically) with the body the server received, and the cache
// report is printed.
import { mkdir, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { z } from "zod";
import { cacheReport } from "../src/audit/index.js";
import { countTokens, startEmulator } from "../src/emulator/index.js";
import { canonicalJson, type JsonValue } from "../src/json/index.js";
import { AnthropicProvider, ModelRegistry, toAnthropicParams } from "../src/llm/index.js";
import { type AgentPlugin, createAgent, resumeAgent } from "../src/loop/index.js";
import { reconstructRequests, verifyLog } from "../src/reconstruct/index.js";
import { JsonlSessionStore } from "../src/store/index.js";
import { defineTool } from "../src/tools/index.js";

const home = process.env.KEELSON_HOME ?? (await mkdtemp(join(tmpdir(), "keelson-demo-")));
const workspace = join(home, "workspace");
await mkdir(workspace, { recursive: true });
await writeFile(join(workspace, "notes.txt"), "Ship the header codec.\nWrite the closing note.\n");
const rules = [
  "# Project rules",
  "Answer in one short paragraph.",
  ...Array.from({ length: 80 }, (_, i) => `- Rule ${i + 1}: keep requests a pure function of the session log.`),
];
await writeFile(join(workspace, "AGENTS.md"), `${rules.join("\n")}\n`);

const emulator = await startEmulator({ model: "rule-based", minCacheableTokens: 1024 });
const provider = new AnthropicProvider({ apiKey: "emulator", baseURL: emulator.anthropicBaseURL });
const MODEL = "claude-sonnet-4-5";

const read = defineTool({
  name: "read",
  description: "Read a UTF-8 text file from the workspace.",
  input: z.object({ path: z.string().describe("path relative to the workspace") }),
  execute: async ({ path }) => {
    const full = resolve(workspace, path);
    if (!full.startsWith(`${workspace}/`))
      return { content: [{ type: "text", text: `refused: ${path} is outside the workspace` }], isError: true };
    return readFile(full, "utf8");
  },
});

/** Contributes the workspace's AGENTS.md once per loop instance, as a request-only opener. */
const agentsDigest: AgentPlugin = (host) => {
  host.on("agent/session-prefix", async (_payload, next) => {
    const text = await readFile(join(workspace, "AGENTS.md"), "utf8");
    return [
      { role: "user", content: [{ type: "text", text: `<system-reminder>\n${text.trim()}\n</system-reminder>` }] },
      ...(await next()),
    ];
  });
  return undefined;
};

const store = new JsonlSessionStore({ root: join(home, "sessions") });
const options = {
  provider,
  model: MODEL,
  cwd: workspace,
  system: "You are Keelson's demo agent in {{cwd}}.",
  tools: [read],
  plugins: [agentsDigest],
};

try {
  const first = createAgent({ ...options, store });
  const answers = [await first.send("What is in notes.txt?"), await first.send("Thanks!")];
  const sessionId = first.session.id;
  await first.dispose();

  // A new loop instance (as after a restart): it recomposes the prefix and logs a `resume` header.
  emulator.clock.advance(60_000);
  const second = await resumeAgent(store, sessionId, options);
  answers.push(await second.send("Summarize what you found."));
  await second.dispose();
  await store.close();

  const reader = new JsonlSessionStore({ root: join(home, "sessions") });
  const { session } = await reader.load(sessionId, { readOnly: true });
  await reader.close();
  const report = verifyLog(session.events);
  const rebuilt = reconstructRequests(session.events);
  const bodies = emulator.requests
    .filter((r) => r.path === "/v1/messages")
    .map((r) => {
      const { stream: _stream, ...body } = r.body as Record<string, unknown>;
      return canonicalJson(body as JsonValue);
    });
  const wire = rebuilt.map((r) => {
    const prefixLength = r.header.messagePrefix?.length ?? 0;
    const request = {
      ...r.request,
      signal: new AbortController().signal,
      sessionId,
      ...(prefixLength > 0 ? { prefixLength } : {}),
    };
    return canonicalJson(toAnthropicParams(request, { defaultMaxTokens: 8192 }) as unknown as JsonValue);
  });
  const identical = wire.filter((w, i) => w === bodies[i]).length;
  const cache = cacheReport(session.events, { countTokens, models: new ModelRegistry() });

  console.log(
    `Keelson demo — session ${sessionId} on the built-in emulator (${emulator.anthropicBaseURL}, Anthropic wire, real SDK)`,
  );
  console.log(
    `log: ${reader.fileOf(sessionId)} (${session.length} events, ${report.turns} turns: ${answers.map((a) => a.reason.kind).join(", ")})`,
  );
  console.log(
    `headers: ${session.events
      .filter((e) => e.type === "request/header")
      .map((e) => (e.data as { reason: string }).reason)
      .join(", ")}`,
  );
  console.log(`verify: ${report.ok ? "clean" : report.issues.map((i) => `${i.code}: ${i.message}`).join("; ")}`);
  console.log(
    `audit: ${rebuilt.length} requests rebuilt from the log; ${identical}/${bodies.length} wire payloads byte-identical to what the server received`,
  );
  console.log("\nrequest  prompt≈tok  cacheable≈  read   write  input  output  change");
  for (const line of cache.requests) {
    const u = line.usage;
    console.log(
      `${line.turn}.${line.step}`.padEnd(9),
      String(line.promptTokens).padStart(9),
      String(line.cacheableTokens).padStart(10),
      String(u?.cacheReadTokens ?? "-").padStart(6),
      String(u?.cacheWriteTokens ?? "-").padStart(6),
      String(u?.inputTokens ?? "-").padStart(6),
      String(u?.outputTokens ?? "-").padStart(7),
      ` ${line.firstChange ?? "(extends previous)"}`,
    );
  }
  console.log(
    `cache-hit share ${(cache.totals.cacheHitShare * 100).toFixed(1)}%, cost $${cache.totals.cost.toFixed(5)} at ${MODEL} prices`,
  );
  for (const r of rebuilt) {
    const prefix = r.header.messagePrefix?.length ?? 0;
    console.log(
      `\n── request ${r.turn}.${r.step}: system ${JSON.stringify(r.request.system)}, tools ${(r.request.tools ?? []).map((t) => t.name).join(", ")}`,
    );
    r.request.messages.forEach((m, i) => {
      const text = JSON.stringify(m);
      console.log(
        `${i < prefix ? "prefix " : "msg    "}[${i}] ${text.length > 160 ? `${text.slice(0, 157)}...` : text}`,
      );
    });
  }
  if (
    !report.ok ||
    identical !== bodies.length ||
    rebuilt.length !== bodies.length ||
    answers.some((a) => a.reason.kind !== "completed")
  )
    process.exitCode = 1;
} finally {
  await emulator.close();
}
