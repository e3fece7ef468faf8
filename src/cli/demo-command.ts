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
import { snapshotHeaderOf } from "../header/index.js";
import type { JsonValue } from "../json/index.js";
import type { Provider } from "../llm/index.js";
import type { Agent, AgentOptions, AgentPlugin } from "../loop/index.js";
import { isEventOf, type Session, type SessionEvent } from "../session/index.js";
import { keelsonHome } from "../home/index.js";
import { SYSTEM_PROMPT } from "./headless-turn.js";
import { commandSummary } from "./commands.js";
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
    .description(commandSummary("demo"))
    .option("--keep", "keep the scratch workspace (it is removed by default; sessions always stay)")
    .action(async (flags: { keep?: boolean }) => {
      process.exitCode = await runDemo(flags.keep === true);
    });
}

/** The layers the demo drives, loaded when it runs. */
async function loadModules() {
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
  return {
    createAgent,
    forkAgent,
    resumeAgent,
    startEmulator,
    countTokens,
    AnthropicProvider,
    ModelRegistry,
    builtinTools,
    context,
    cacheReport,
    reconstructRequests,
    verifyLog,
    JsonlSessionStore,
    wirePayload,
    canonicalJson,
  };
}

type Modules = Awaited<ReturnType<typeof loadModules>>;
type Emulator = Awaited<ReturnType<Modules["startEmulator"]>>;

/** What the demo's sections share: the layers, where it runs, its loop instances, the checks that failed. */
interface Demo {
  readonly m: Modules;
  readonly started: number;
  /** `$KEELSON_HOME` as given (the demo uses a temporary home when it is unset). */
  readonly envHome: string | undefined;
  readonly home: string;
  readonly workspace: string;
  readonly sessionsDir: string;
  readonly emulator: Emulator;
  readonly instances: Instance[];
  readonly failures: string[];
}

/** The two sessions the demo stored: the parent (created, then resumed) and its fork. */
interface DemoSessions {
  readonly parent: Session;
  readonly child: Session;
}

const out = (...lines: string[]): void => {
  process.stdout.write(`${(lines.length === 0 ? [""] : lines).join("\n")}\n`);
};

/** "ok", or "FAILED" with `what` recorded as a failed check. */
function check(demo: Demo, ok: boolean, what: string): string {
  if (!ok) demo.failures.push(what);
  return ok ? "ok" : "FAILED";
}

async function runDemo(keep: boolean): Promise<number> {
  const demo = await prepare(await loadModules());
  try {
    const { parentId, childId } = await runInstances(demo);
    const sessions = await readStored(demo, parentId, childId);
    checkPrefixes(demo, sessions);
    reportCache(demo, sessions);
    verifyLogs(demo, sessions);
    auditWire(demo, sessions);
    return finish(demo, parentId, childId);
  } finally {
    // On every way out, a failure included: a demo that stops early leaves no scratch behind.
    if (!keep) await rm(demo.workspace, { recursive: true, force: true });
  }
}

/**
 * The emulator, a home, the scratch workspace; then the banner saying where everything is. The
 * emulator starts first: when it cannot (its tokenizer is not installed) nothing is left on disk.
 */
async function prepare(m: Modules): Promise<Demo> {
  const started = Date.now();
  const emulator = await m.startEmulator({ model: "rule-based", minCacheableTokens: 1024 });
  const envHome = process.env.KEELSON_HOME;
  let workspace: string | undefined;
  let home: string;
  try {
    home = envHome ? keelsonHome() : await mkdtemp(join(tmpdir(), "keelson-home-"));
    workspace = await mkdtemp(join(tmpdir(), "keelson-demo-"));
    for (const [path, text] of Object.entries(FILES)) {
      await mkdir(dirname(join(workspace, path)), { recursive: true });
      await writeFile(join(workspace, path), text);
    }
  } catch (error) {
    if (workspace !== undefined) await rm(workspace, { recursive: true, force: true });
    await emulator.close();
    throw error;
  }
  const sessionsDir = join(home, "sessions");
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
  return { m, started, envHome, home, workspace, sessionsDir, emulator, instances: [], failures: [] };
}

/** A new session with three turns, a restart over its log (one turn), a fork of it (one turn in the child). */
async function runInstances(demo: Demo): Promise<{ parentId: string; childId: string }> {
  const { m, emulator } = demo;
  const provider = new m.AnthropicProvider({ apiKey: "emulator", baseURL: emulator.anthropicBaseURL });
  const store = new m.JsonlSessionStore({ root: demo.sessionsDir });
  let parentId = "";
  let childId = "";
  try {
    // 1. A new session: three turns with tool round trips.
    const first = instanceOptions(demo, provider, "initial instance (createAgent)", "initial");
    const agent = m.createAgent({ ...first.options, store });
    observe(agent, first.instance);
    parentId = agent.session.id;
    out("", `── ${first.instance.label}: session ${parentId}`);
    for (const prompt of ["list the files", "what is in src/app.ts?", "thanks"]) await turn(demo, agent, prompt);
    await agent.dispose();

    // 2. A restart: a new loop instance over the stored log.
    emulator.clock.advance(60_000);
    const second = instanceOptions(demo, provider, "resumed instance (resumeAgent)", "resume");
    const resumed = await m.resumeAgent(store, parentId, second.options);
    observe(resumed, second.instance);
    out("", `── ${second.instance.label}: session ${parentId}`);
    await turn(demo, resumed, "what is in src/util.ts?");
    await resumed.dispose();

    // 3. A fork at the parent's last turn/end: one turn in the child.
    const third = instanceOptions(demo, provider, "fork instance (forkAgent)", "resume");
    const child = await m.forkAgent(store, parentId, third.options);
    observe(child, third.instance);
    childId = child.session.id;
    out("", `── ${third.instance.label}: child session ${childId} of ${parentId}`);
    await turn(demo, child, "list the files again");
    await child.dispose();
  } finally {
    await store.close();
    await emulator.close();
  }
  return { parentId, childId };
}

/** A loop instance to count, and the agent options it runs with (the built-in tools, writes denied, and the three prefix contributors). */
function instanceOptions(
  demo: Demo,
  provider: Provider,
  label: string,
  expectedReason: Instance["expectedReason"],
): { instance: Instance; options: AgentOptions } {
  const { m, workspace, home } = demo;
  const instance: Instance = { label, expectedReason, compositions: 0, headers: [] };
  demo.instances.push(instance);
  const plugins: AgentPlugin[] = [
    countingPlugin(instance),
    m.builtinTools({ root: workspace, permissions: { mode: "deny" } }),
    m.context.skillsCatalog({ cwd: workspace, home }),
    m.context.workspaceInstructions({ cwd: workspace, home }),
    m.context.workspaceBaseline({ cwd: workspace, gitStatus: false }),
  ];
  return { instance, options: { provider, model: MODEL, cwd: workspace, system: SYSTEM_PROMPT, plugins } };
}

/** Records the request-header snapshots `agent` logs, for the prefix check. */
function observe(agent: Agent, instance: Instance): void {
  agent.hooks.on("session/event", ({ event }) => {
    if (!isEventOf(event, "request/header")) return;
    const header = snapshotHeaderOf(event);
    instance.headers.push({ reason: event.data.reason, prefixLength: header.messagePrefix?.length ?? 0 });
  });
}

/** One turn, printed: the prompt, each answer's first line, each tool call. */
async function turn(demo: Demo, agent: Agent, prompt: string): Promise<void> {
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
    out(`    turn ended ${reason.kind} … ${check(demo, false, `turn "${prompt}" ended ${reason.kind}`)}`);
}

/** The two logs as stored, through a fresh read-only store. */
async function readStored(demo: Demo, parentId: string, childId: string): Promise<DemoSessions> {
  const reader = new demo.m.JsonlSessionStore({ root: demo.sessionsDir });
  const parent = (await reader.load(parentId, { readOnly: true })).session;
  const child = (await reader.load(childId, { readOnly: true })).session;
  await reader.close();
  return { parent, child };
}

/** The session prefix: composed once per instance, logged on its header, kept out of history. */
function checkPrefixes(demo: Demo, { parent, child }: DemoSessions): void {
  out("", "── session prefix: composed once per instance, logged on its header, kept out of history");
  for (const instance of demo.instances) {
    const ok =
      instance.compositions === 1 &&
      instance.headers.length === 1 &&
      instance.headers[0]?.reason === instance.expectedReason &&
      (instance.headers[0]?.prefixLength ?? 0) > 0;
    const logged = instance.headers.map((h) => `${h.reason} (${h.prefixLength} prefix messages)`).join(", ") || "none";
    out(
      `  ${instance.label.padEnd(32)} composed ${instance.compositions}×, request/header events: ${instance.headers.length} — ${logged} … ${check(demo, ok, `prefix of the ${instance.label}`)}`,
    );
  }
  const headerReasons = (events: readonly SessionEvent[]) =>
    events.flatMap((e) => (isEventOf(e, "request/header") ? [e.data.reason] : []));
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
      `  ${name}: ${ok ? "prefix not in history" : "PREFIX IN HISTORY"} — ${leaked} of ${history.length} derived messages are among the ${prefixes.size} logged prefix messages … ${check(demo, ok, `prefix in the ${name}'s history`)}`,
    );
  }
}

/** The parent's cache report, request by request, and the child's last request (the fork keeps the cache). */
function reportCache(demo: Demo, { parent, child }: DemoSessions): void {
  const { cacheReport, countTokens, ModelRegistry } = demo.m;
  const report = cacheReport(parent.events, { countTokens, models: new ModelRegistry() });
  out("", `── cache report, parent session ${parent.id} (≈ = estimated with cl100k)`);
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
    `  cache-hit share ${(share * 100).toFixed(1)}% · cost $${report.totals.cost.toFixed(5)} … ${check(demo, share > 0, "cache-hit share is zero")}`,
  );
  const childReport = cacheReport(child.events, { countTokens, models: new ModelRegistry() });
  const childLast = childReport.requests.at(-1)?.usage;
  out(
    `  child's last request: read ${childLast?.cacheReadTokens ?? "-"}, write ${childLast?.cacheWriteTokens ?? "-"}, input ${childLast?.inputTokens ?? "-"} (the fork keeps the parent's cache)`,
  );
}

/** `verifyLog` and a full reconstruction of both logs. */
function verifyLogs(demo: Demo, sessions: DemoSessions): void {
  const { verifyLog, reconstructRequests } = demo.m;
  out("", "── verify (verifyLog + full reconstruction)");
  for (const [name, session] of named(sessions)) {
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
    check(demo, clean, `verify ${name}`);
  }
}

/** Every request rebuilt from each log alone as the adapter's payload, against the bytes the emulator received. */
function auditWire(demo: Demo, sessions: DemoSessions): void {
  const { canonicalJson, reconstructRequests, wirePayload } = demo.m;
  out(
    "",
    "── wire audit: every request rebuilt from the log alone as the adapter's payload, vs the bytes the emulator received",
  );
  for (const [name, session] of named(sessions)) {
    const received = demo.emulator.requests
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
      `  ${name}: ${received.length} requests received, ${rebuilt.length} rebuilt from its log${inherited}, ${identical} byte-identical (canonical JSON) … ${check(demo, ok, `wire audit of the ${name}`)}`,
    );
  }
}

/** Says where the sessions are and what to try, and the verdict: the exit code. */
function finish(demo: Demo, parentId: string, childId: string): number {
  out("", `sessions kept in ${demo.sessionsDir}: ${parentId} (parent), ${childId} (child)`);
  const prefix = `${demo.envHome ? "" : `KEELSON_HOME=${demo.home} `}${cliInvocation()}`;
  out(`try: ${prefix} show ${parentId} · ${prefix} cache ${childId} · ${prefix} requests ${parentId} --wire anthropic`);
  const { failures } = demo;
  out(
    failures.length === 0
      ? `demo: all checks passed in ${((Date.now() - demo.started) / 1000).toFixed(1)} s`
      : `demo: ${failures.length} check(s) failed: ${failures.join("; ")}`,
  );
  return failures.length === 0 ? 0 : 1;
}

const named = ({ parent, child }: DemoSessions): readonly (readonly ["parent" | "child", Session])[] => [
  ["parent", parent],
  ["child", child],
];

/** The canonical JSON of every message any `request/header` snapshot logged as prefix. */
function prefixTexts(events: readonly SessionEvent[]): Set<string> {
  const texts = new Set<string>();
  for (const event of events) {
    if (!isEventOf(event, "request/header")) continue;
    for (const message of snapshotHeaderOf(event).messagePrefix ?? []) texts.add(JSON.stringify(message));
  }
  return texts;
}

function num(value: number | undefined): string {
  return String(value ?? "-").padStart(7);
}
