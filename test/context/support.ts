// Builders for the context-contributor tests: temp projects on disk (mkdtemp, removed after
// each test), a real agent over a ScriptedProvider with `cwd` at the project, file tools the
// scripted model can call, and readers for the prefix as sent and as logged.
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { expect } from "vitest";
import { afterThisTest } from "../support/test-cleanups.js";
import { z } from "zod";
import type { EpochHeader } from "../../src/header/index.js";
import { ScriptedProvider, type ScriptedStep } from "../../src/llm/index.js";
import { type Agent, type AgentOptions, type AgentPlugin, createAgent } from "../../src/loop/index.js";
import type { Message } from "../../src/messages/index.js";
import { reconstructRequests, verifyLog } from "../../src/reconstruct/index.js";
import { defineTool } from "../../src/tools/index.js";
import { fixedClock } from "../support/builders.js";

/** A fresh empty directory (real path), removed after the test. */
export async function tempDir(label = "ctx"): Promise<string> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), `keelson-${label}-`)));
  afterThisTest(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** A temp project: a `.git` directory whose HEAD names `branch`, plus a separate empty home. */
export async function tempProject(branch = "main"): Promise<{ root: string; home: string }> {
  const root = await tempDir("project");
  await put(root, ".git/HEAD", `ref: refs/heads/${branch}\n`);
  return { root, home: await tempDir("home") };
}

/** Writes `text` at `root/rel`, creating directories. */
export async function put(root: string, rel: string, text: string | Buffer): Promise<string> {
  const path = join(root, rel);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, text);
  return path;
}

export async function link(root: string, rel: string, target: string): Promise<string> {
  const path = join(root, rel);
  await mkdir(dirname(path), { recursive: true });
  await symlink(target, path);
  return path;
}

/** A SKILL.md with the given frontmatter fields and body. */
export const skillFile = (name: string, description: string, body = `# ${name}\nDo the ${name} thing.\n`): string =>
  `---\nname: ${name}\ndescription: ${JSON.stringify(description)}\n---\n\n${body}`;

/** `write({ path, content })`: writes a file relative to the tool's cwd. */
export const writeTool = defineTool({
  name: "write",
  description: "Writes a file.",
  input: z.object({ path: z.string(), content: z.string() }),
  execute: async ({ path, content }, ctx) => {
    const target = resolve(ctx.cwd ?? ".", path);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, content);
    return `wrote ${path}`;
  },
});

/** `read({ path })`: a stand-in that never touches the disk (what matters is the path argument). */
export const readTool = defineTool({
  name: "read",
  description: "Reads a file.",
  input: z.object({ path: z.string() }),
  execute: ({ path }) => `contents of ${path}`,
});

export interface Rig {
  readonly agent: Agent;
  readonly provider: ScriptedProvider;
  readonly errors: { readonly error: unknown; readonly where: string }[];
}

/** A real agent at `cwd` with `plugins`, whose model answers `replies` then "done"; `extra` wins. */
export function rig(
  cwd: string,
  plugins: readonly AgentPlugin[],
  replies: readonly ScriptedStep[] = [],
  extra: Partial<AgentOptions> = {},
): Rig {
  const provider = new ScriptedProvider(replies, { fallback: { text: "done" } });
  const agent = createAgent({
    provider,
    model: "scripted:test",
    system: "You are careful.",
    cwd,
    plugins,
    tools: [readTool, writeTool],
    clock: fixedClock(),
    ...extra,
  });
  const errors: Rig["errors"] = [];
  agent.hooks.on("agent/error", ({ error, where }) => {
    errors.push({ error, where });
  });
  return { agent, provider, errors };
}

/** Runs one turn ("go") on a new agent and returns the rig; the turn must complete. */
export async function runTurn(
  cwd: string,
  plugins: readonly AgentPlugin[],
  replies: readonly ScriptedStep[] = [],
): Promise<Rig> {
  const r = rig(cwd, plugins, replies);
  expect(await r.agent.send("go")).toEqual({ turn: 1, reason: { kind: "completed" } });
  await r.agent.dispose();
  return r;
}

/** The `messagePrefix` of the log's `request/header` snapshots (undefined when absent). */
export function loggedPrefixes(session: Agent["session"]): (readonly Message[] | undefined)[] {
  return session.events
    .filter((e) => e.type === "request/header")
    .map((e) => (e.data as unknown as { header: EpochHeader }).header.messagePrefix);
}

/** The one logged prefix of a single-instance run. */
export function loggedPrefix(agent: Agent): readonly Message[] | undefined {
  const all = loggedPrefixes(agent.session);
  expect(all).toHaveLength(1);
  return all[0];
}

/** The text of a one-block message. */
export function textOf(message: Message | undefined): string {
  expect(message?.content).toHaveLength(1);
  const block = message!.content[0]!;
  if (block.type !== "text") throw new Error(`expected a text block, got ${block.type}`);
  return block.text;
}

/** `<system-reminder>` around `lines`. */
export const reminder = (...lines: string[]): string => `<system-reminder>\n${lines.join("\n")}\n</system-reminder>`;

/** The request messages in front of the first history message (the user's "go"). */
export function sentPrefix(rigged: Rig, request = 0): readonly Message[] {
  const messages = rigged.provider.requests[request]!.messages;
  const history = messages.findIndex(
    (m) => m.role === "user" && m.content[0]?.type === "text" && m.content[0].text === "go",
  );
  return messages.slice(0, history);
}

/** The requests of several instances over one session, in order (for `expectLogMatchesRequests`). */
export function mergedRequests(...rigs: readonly Rig[]): ScriptedProvider {
  const merged = new ScriptedProvider();
  merged.requests.push(...rigs.flatMap((r) => r.provider.requests));
  return merged;
}

/** What was sent is what the log says was sent (the loop's invariant, checked again here). */
export function expectLogMatchesRequests({ agent, provider }: Pick<Rig, "agent" | "provider">): void {
  expect(verifyLog(agent.session.events).issues).toEqual([]);
  const sent = provider.requests.map(({ signal: _s, sessionId: _i, prefixLength: _p, ...rest }) => rest);
  expect(reconstructRequests(agent.session.events).map((r) => r.request)).toEqual(sent);
}
