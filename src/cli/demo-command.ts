// `keelson demo [--keep]`: the offline main job (what `npm start` runs). On the emulator's
// rule-based model (an in-process server driven through AnthropicProvider and the real SDK: no
// key, no network) it builds a scratch workspace (AGENTS.md, two skills, two source files), runs
// an agent with the built-in tools (writes denied) and the three prefix contributors
// (skillsCatalog, workspaceInstructions, workspaceBaseline) for three turns, restarts it as a new
// instance (resumeAgent, one turn), forks it (forkAgent, one turn in the child), then checks and
// prints: the prefix composed once per instance and logged on that instance's header, the prefix
// kept out of history, the cache report, `verify` for parent and child, and a wire audit: every
// request rebuilt from the log as the adapter's payload equals what the emulator received. Exit 0 only if every
// check holds. Sessions stay in `$KEELSON_HOME/sessions` (a temporary home when unset); the
// scratch workspace is removed unless `--keep`.
import { errorMessage } from "../errors/index.js";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { Command } from "commander";
import type { Agent, AgentPlugin } from "../loop/index.js";
import type { JsonValue } from "../json/index.js";
import type { Message } from "../messages/index.js";
import type { SessionEvent } from "../session/index.js";
import { keelsonHome } from "../home/index.js";
import { SYSTEM_PROMPT } from "./headless-turn.js";
import { summaryOf } from "./commands.js";
import { cliInvocation } from "./invocation.js";

const MODEL = "emulator:emulator-anthropic";

const FILES: Readonly<Record<string, string>> = {
  "AGENTS.md": [
    "# Demo project rules",
    "",
    "- Answer in one short paragraph; name files by their workspace-relative path.",
    "- Read a file before describing it; never guess its contents.",
    "- Writes are denied in this demo: propose edits instead of making them.",
    ...Array.from(
      { length: 60 },
      (_, i) => `- Rule ${i + 1}: every model request is a pure function of the session log; keep it that way.`,
    ),
    "",
  ].join("\n"),
  ".keelson/skills/release-notes/SKILL.md":
    "---\nname: release-notes\ndescription: Draft release notes from the changes in src/, grouped by feature and fix.\n---\n# Release notes\n\n1. List the changed files.\n2. Summarize each change in one line.\n",
  ".keelson/skills/code-review/SKILL.md":
    "---\nname: code-review\ndescription: Review a TypeScript file for correctness, naming and missing tests.\n---\n# Code review\n\nRead the file, then list concrete findings with line numbers.\n",
  "src/app.ts":
    'import { greet } from "./util.js";\n\nexport function main(): void {\n  console.log(greet("Keelson"));\n}\n',
  "src/util.ts": 'export function greet(name: string): string {\n  return "Hello, " + name + "!";\n}\n',
};

interface Instance {
  readonly label: string;
  readonly expectedReason: "initial" | "resume";
  compositions: number;
  readonly headers: { reason: string; prefixLength: number }[];
}

/** Counts this instance's prefix compositions (registered first, so it wraps every contributor). */
function countingPlugin(instance: Instance): AgentPlugin {
  return (host) => {
    host.on("agent/session-prefix", async (_payload, next) => {
      instance.compositions += 1;
      return next();
    });
    return undefined;
  };
}

export function registerDemo(program: Command): void {
  program
    .command("demo")
    .description(summaryOf("demo"))
    .option("--keep", "keep the scratch workspace (it is removed by default; sessions always stay)")
    .action(async (flags: { keep?: boolean }) => {
      process.exitCode = await runDemo(flags.keep === true);
    });
}

async function runDemo(keep: boolean): Promise<number> {
  const started = Date.now();
  const [
    { createAgent, forkAgent, resumeAgent },
    { startEmulator, countTokens },
    { AnthropicProvider, ModelRegistry },
    { builtinTools },
    context,
    { cacheReport },
    { reconstructRequests, verifyLog },
    { JsonlSessionStore },
    { wirePayload },
    { canonicalJson },
  ] = await Promise.all([
    import("../loop/index.js"),
    import("../emulator/index.js"),
    import("../llm/index.js"),
    import("../builtin-tools/index.js"),
    import("../context/index.js"),
    import("../audit/index.js"),
    import("../reconstruct/index.js"),
    import("../store/index.js"),
    import("./wire-payload.js"),
    import("../json/index.js"),
  ]);
  const out = (...lines: string[]): void => {
    process.stdout.write(`${(lines.length === 0 ? [""] : lines).join("\n")}\n`);
  };

  const envHome = process.env.KEELSON_HOME;
  const home = envHome ? keelsonHome() : await mkdtemp(join(tmpdir(), "keelson-home-"));
  const workspace = await mkdtemp(join(tmpdir(), "keelson-demo-"));
  for (const [path, text] of Object.entries(FILES)) {
    await mkdir(dirname(join(workspace, path)), { recursive: true });
    await writeFile(join(workspace, path), text);
  }
  const sessionsDir = join(home, "sessions");
  const emulator = await startEmulator({ model: "rule-based", minCacheableTokens: 1024 });
  const provider = new AnthropicProvider({ apiKey: "emulator", baseURL: emulator.anthropicBaseURL });
  const store = new JsonlSessionStore({ root: sessionsDir });
  const failures: string[] = [];
  const check = (ok: boolean, what: string): string => {
    if (!ok) failures.push(what);
    return ok ? "ok" : "FAILED";
  };

  out(
    "Keelson demo — offline: the emulator's rule-based model behind AnthropicProvider (real SDK, no key, no network)",
  );
  out(`emulator: ${emulator.anthropicBaseURL} · model ${MODEL}`);
  out(`workspace: ${workspace} (${Object.keys(FILES).join(", ")})`);
  out(
    envHome
      ? `KEELSON_HOME=${home} (sessions in ${sessionsDir})`
      : `KEELSON_HOME was unset: using the temporary home ${home} — inspect with KEELSON_HOME=${home} ${cliInvocation()} show|requests|cache|verify <id>`,
  );

  const instances: Instance[] = [];
  const optionsFor = (label: string, expectedReason: Instance["expectedReason"]) => {
    const instance: Instance = { label, expectedReason, compositions: 0, headers: [] };
    instances.push(instance);
    const plugins: AgentPlugin[] = [
      countingPlugin(instance),
      builtinTools({ root: workspace, permissions: { mode: "deny" } }),
      context.skillsCatalog({ cwd: workspace, home }),
      context.workspaceInstructions({ cwd: workspace, home }),
      context.workspaceBaseline({ cwd: workspace, gitStatus: false }),
    ];
    return { instance, options: { provider, model: MODEL, cwd: workspace, system: SYSTEM_PROMPT, plugins } };
  };
  const observe = (agent: Agent, instance: Instance): void => {
    agent.hooks.on("session/event", ({ event }) => {
      if (event.type !== "request/header") return;
      const data = event.data as { reason: string; header: { messagePrefix?: readonly unknown[] } };
      instance.headers.push({ reason: data.reason, prefixLength: data.header.messagePrefix?.length ?? 0 });
    });
  };
  const turn = async (agent: Agent, prompt: string): Promise<void> => {
    const before = agent.session.deriveMessages().length;
    const { reason } = await agent.send(prompt);
    out(`  > ${prompt}`);
    for (const message of agent.session.deriveMessages().slice(before)) {
      for (const block of message.content) {
        if (message.role === "assistant" && block.type === "text" && block.text.trim() !== "")
          out(`    ${block.text.trim().split("\n")[0]}`);
        if (block.type === "tool-call")
          out(
            `    [tool ${block.name} ${typeof block.arguments === "string" ? block.arguments : JSON.stringify(block.arguments)}]`,
          );
      }
    }
    if (reason.kind !== "completed")
      out(`    turn ended ${reason.kind} … ${check(false, `turn "${prompt}" ended ${reason.kind}`)}`);
  };

  let parentId = "";
  let childId = "";
  try {
    // 1. A new session: three turns with tool round trips.
    const first = optionsFor("initial instance (createAgent)", "initial");
    const agent = createAgent({ ...first.options, store });
    observe(agent, first.instance);
    parentId = agent.session.id;
    out("", `── ${first.instance.label}: session ${parentId}`);
    for (const prompt of ["list the files", "what is in src/app.ts?", "thanks"]) await turn(agent, prompt);
    await agent.dispose();

    // 2. A restart: a new loop instance over the stored log.
    emulator.clock.advance(60_000);
    const second = optionsFor("resumed instance (resumeAgent)", "resume");
    const resumed = await resumeAgent(store, parentId, second.options);
    observe(resumed, second.instance);
    out("", `── ${second.instance.label}: session ${parentId}`);
    await turn(resumed, "what is in src/util.ts?");
    await resumed.dispose();

    // 3. A fork at the parent's last turn/end: one turn in the child.
    const third = optionsFor("fork instance (forkAgent)", "resume");
    const child = await forkAgent(store, parentId, third.options);
    observe(child, third.instance);
    childId = child.session.id;
    out("", `── ${third.instance.label}: child session ${childId} of ${parentId}`);
    await turn(child, "list the files again");
    await child.dispose();
  } finally {
    await store.close();
    await emulator.close();
  }

  // Checks, over the logs as stored (a fresh read-only store).
  const reader = new JsonlSessionStore({ root: sessionsDir });
  const parent = (await reader.load(parentId, { readOnly: true })).session;
  const child = (await reader.load(childId, { readOnly: true })).session;
  await reader.close();

  out("", "── session prefix: composed once per instance, logged on its header, kept out of history");
  for (const instance of instances) {
    const ok =
      instance.compositions === 1 &&
      instance.headers.length === 1 &&
      instance.headers[0]?.reason === instance.expectedReason &&
      (instance.headers[0]?.prefixLength ?? 0) > 0;
    const logged = instance.headers.map((h) => `${h.reason} (${h.prefixLength} prefix messages)`).join(", ") || "none";
    out(
      `  ${instance.label.padEnd(32)} composed ${instance.compositions}×, request/header events: ${instance.headers.length} — ${logged} … ${check(ok, `prefix of the ${instance.label}`)}`,
    );
  }
  const headerReasons = (events: readonly SessionEvent[]) =>
    events.filter((e) => e.type === "request/header").map((e) => (e.data as { reason: string }).reason);
  out(
    `  parent log headers: ${headerReasons(parent.events).join(", ")} · child log headers: ${headerReasons(child.events).join(", ")}`,
  );
  for (const [name, session] of [
    ["parent", parent],
    ["child", child],
  ] as const) {
    const prefixes = prefixTexts(session.events);
    const history = session.deriveMessages();
    const leaked = history.filter((m) => prefixes.has(JSON.stringify(m))).length;
    const ok = prefixes.size > 0 && leaked === 0;
    out(
      `  ${name}: ${ok ? "prefix not in history" : "PREFIX IN HISTORY"} — ${leaked} of ${history.length} derived messages are among the ${prefixes.size} logged prefix messages … ${check(ok, `prefix in the ${name}'s history`)}`,
    );
  }

  const report = cacheReport(parent.events, { countTokens, models: new ModelRegistry() });
  out("", `── cache report, parent session ${parentId} (≈ = estimated with cl100k)`);
  out(
    `  ${"request".padEnd(8)} ${"prompt≈".padStart(8)} ${"read".padStart(7)} ${"write".padStart(7)} ${"input".padStart(7)} ${"output".padStart(7)}  first change`,
  );
  for (const line of report.requests) {
    const u = line.usage;
    out(
      `  ${`${line.turn}.${line.step}`.padEnd(8)} ${String(line.promptTokens).padStart(8)} ${num(u?.cacheReadTokens)} ${num(u?.cacheWriteTokens)} ${num(u?.inputTokens)} ${num(u?.outputTokens)}  ${line.firstChange ?? (line === report.requests[0] ? "(first request)" : "(extends previous)")}`,
    );
  }
  const share = report.totals.cacheHitShare;
  out(
    `  cache-hit share ${(share * 100).toFixed(1)}% · cost $${report.totals.cost.toFixed(5)} … ${check(share > 0, "cache-hit share is zero")}`,
  );
  const childReport = cacheReport(child.events, { countTokens, models: new ModelRegistry() });
  const childLast = childReport.requests.at(-1)?.usage;
  out(
    `  child's last request: read ${childLast?.cacheReadTokens ?? "-"}, write ${childLast?.cacheWriteTokens ?? "-"}, input ${childLast?.inputTokens ?? "-"} (the fork keeps the parent's cache)`,
  );

  out("", "── verify (verifyLog + full reconstruction)");
  for (const [name, session] of [
    ["parent", parent],
    ["child", child],
  ] as const) {
    const result = verifyLog(session.events);
    let requests = 0;
    let problem: string | undefined;
    try {
      for (const r of reconstructRequests(session.events)) {
        void r.request;
        requests++;
      }
    } catch (error) {
      problem = errorMessage(error);
    }
    const clean = result.ok && problem === undefined;
    const detail = clean
      ? `clean: ${result.events} events, ${result.turns} turns, ${requests} requests`
      : `not clean: ${[...result.issues.map((i) => `${i.code}: ${i.message}`), ...(problem === undefined ? [] : [problem])].join("; ")}`;
    out(`  verify ${name} ${session.id}: ${detail}`);
    check(clean, `verify ${name}`);
  }

  out(
    "",
    "── wire audit: every request rebuilt from the log alone as the adapter's payload, vs the bytes the emulator received",
  );
  for (const [name, session] of [
    ["parent", parent],
    ["child", child],
  ] as const) {
    const received = emulator.requests
      .filter(
        (r) =>
          r.path === "/v1/messages" &&
          (r.body as { metadata?: { user_id?: unknown } }).metadata?.user_id === session.id,
      )
      .map((r) => canonicalJson(r.body as JsonValue));
    // A fork's inherited requests were sent (and are audited) under the parent's id.
    const own = session.header.seedLength ?? 0;
    const rebuilt = [...reconstructRequests(session.events)]
      .filter((r) => r.stepStartSeq >= own)
      .map((r) => canonicalJson(wirePayload(r, session.id, "anthropic") as JsonValue));
    const identical = rebuilt.filter((payload, i) => payload === received[i]).length;
    const ok = received.length > 0 && rebuilt.length === received.length && identical === received.length;
    const inherited = own === 0 ? "" : ` (after the ${own} events inherited from the parent)`;
    out(
      `  ${name}: ${received.length} requests received, ${rebuilt.length} rebuilt from its log${inherited}, ${identical} byte-identical (canonical JSON) … ${check(ok, `wire audit of the ${name}`)}`,
    );
  }

  if (!keep) await rm(workspace, { recursive: true, force: true });
  out("", `sessions kept in ${sessionsDir}: ${parentId} (parent), ${childId} (child)`);
  const prefix = `${envHome ? "" : `KEELSON_HOME=${home} `}${cliInvocation()}`;
  out(`try: ${prefix} show ${parentId} · ${prefix} cache ${childId} · ${prefix} requests ${parentId} --wire anthropic`);
  out(
    failures.length === 0
      ? `demo: all checks passed in ${((Date.now() - started) / 1000).toFixed(1)} s`
      : `demo: ${failures.length} check(s) failed: ${failures.join("; ")}`,
  );
  return failures.length === 0 ? 0 : 1;
}

/** The canonical JSON of every message any `request/header` snapshot logged as prefix. */
function prefixTexts(events: readonly SessionEvent[]): Set<string> {
  const texts = new Set<string>();
  for (const event of events) {
    if (event.type !== "request/header") continue;
    const prefix = (event.data as { header: { messagePrefix?: readonly Message[] } }).header.messagePrefix ?? [];
    for (const message of prefix) texts.add(JSON.stringify(message));
  }
  return texts;
}

function num(value: number | undefined): string {
  return String(value ?? "-").padStart(7);
}
