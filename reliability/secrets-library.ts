// The secrets suite through the library: a real adapter (Anthropic, OpenAI or DeepSeek flavor,
// the official SDK over HTTP to the emulator) constructed with a fake key, an agent on the JSONL
// store with the built-in tools — a tool round, a 401, a 500 retried until the attempts run out,
// then `resumeAgent` for one more turn — a provider whose server is gone (connection refused),
// the adapter called directly (401, 500, refused: thrown with the SDK error as `cause`), and bad
// inputs (an unknown session id, an empty model, invalid prompt content — refused at the door). Returns every
// stored file, every error the library threw or reported on `agent/error` (message, stack,
// `cause` chain, util.inspect), the turn outcomes, the reconstructed requests, the cache report
// and the emulator's request records, for the scanner. A path that did not happen as planned is
// a Violation.
import { readdir, readFile } from "node:fs/promises";
import { createServer } from "node:net";
import { join } from "node:path";
import { inspect } from "node:util";
import { cacheReport } from "../src/audit/index.js";
import type { EmulatorServer } from "../src/emulator/index.js";
import { AnthropicProvider, OpenAICompatibleProvider, type Provider } from "../src/llm/index.js";
import { type Agent, type AgentOptions, createAgent, resumeAgent, type TurnOutcome } from "../src/loop/index.js";
import type { UserContent } from "../src/messages/index.js";
import { reconstructRequests } from "../src/reconstruct/index.js";
import { JsonlSessionStore } from "../src/store/index.js";
import { builtinTools } from "../src/builtin-tools/index.js";
import { AUTH_FAIL } from "./secrets-emulator.js";
import type { Exposure, FakeKey, KeyProvider } from "./secrets-keys.js";
import { check } from "./violation.js";

export interface LibraryScenario {
  readonly root: string;
  readonly workspace: string;
  readonly emulator: EmulatorServer;
  readonly key: FakeKey;
}

export interface LibraryRun {
  readonly exposures: Exposure[];
  /** Errors rendered, causes included. */
  readonly errors: number;
}

const MODEL: Readonly<Record<KeyProvider, string>> = {
  anthropic: "anthropic:claude-sonnet-4-5",
  openai: "openai:gpt-5.1",
  deepseek: "deepseek:deepseek-chat",
};

function providerFor({ provider, key }: FakeKey, emulator: EmulatorServer, baseURL?: string): Provider {
  if (provider === "anthropic")
    return new AnthropicProvider({ apiKey: key, baseURL: baseURL ?? emulator.anthropicBaseURL });
  const url = baseURL ?? (provider === "openai" ? emulator.openaiBaseURL : emulator.url);
  return new OpenAICompatibleProvider({ flavor: provider, apiKey: key, baseURL: url });
}

/** An error as a person or a log would see it: every message, stack and own property down the cause chain. */
function renderError(error: unknown): string {
  const parts = [inspect(error, { depth: 10, breakLength: Number.POSITIVE_INFINITY })];
  for (
    let e: unknown = error, depth = 0;
    e !== undefined && e !== null && depth < 10;
    e = (e as { cause?: unknown }).cause, depth++
  ) {
    parts.push(e instanceof Error ? `${e.name}: ${e.message}\n${e.stack ?? ""}` : String(e));
    try {
      parts.push(JSON.stringify(e));
    } catch {
      // not serializable: inspect above covers it
    }
  }
  return parts.join("\n");
}

/** A 127.0.0.1 port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export async function libraryScenario({ root, workspace, emulator, key }: LibraryScenario): Promise<LibraryRun> {
  const errors: { where: string; error: unknown }[] = [];
  const outcomes: TurnOutcome[] = [];
  const store = new JsonlSessionStore({ root });
  const options = (provider: Provider): AgentOptions => ({
    provider,
    model: MODEL[key.provider],
    cwd: workspace,
    system: "You are the secrets suite's agent in {{cwd}}.",
    plugins: [builtinTools()],
    retry: { maxAttempts: 2, sleep: async () => {} },
  });
  const watch = (agent: Agent, label: string): Agent => {
    agent.hooks.on("agent/error", ({ error, where }) => {
      errors.push({ where: `${label}: agent/error (${where})`, error });
    });
    return agent;
  };
  const send = async (agent: Agent, content: string | readonly UserContent[], expected: string): Promise<void> => {
    const outcome = await agent.send(content);
    outcomes.push(outcome);
    const got = outcome.reason.kind === "error" ? `error/${outcome.reason.code}` : outcome.reason.kind;
    check(
      got === expected,
      `library turn ${outcome.turn} ended ${got}, expected ${expected}: ${JSON.stringify(outcome.reason)}`,
    );
  };
  const thrown = async (where: string, attempt: () => unknown): Promise<void> => {
    try {
      await attempt();
    } catch (error) {
      errors.push({ where, error });
      return;
    }
    check(false, `${where} did not throw`);
  };

  const agent = watch(createAgent({ ...options(providerFor(key, emulator)), store }), "agent");
  await send(agent, "List the files here.", "completed");
  await send(agent, `${AUTH_FAIL} Say hello.`, "error/auth");
  emulator.faults.next("http-500", "http-500");
  await send(agent, "Say hello again.", "error/server-error");
  check(
    agent.session.events.some((e) => e.type === "llm/retry"),
    "the 500 was not retried",
  );
  await agent.dispose();
  const resumed = watch(await resumeAgent(store, agent.session.id, options(providerFor(key, emulator))), "resumed");
  await send(resumed, "Read notes.txt.", "completed");
  await resumed.dispose();

  const gone = `http://127.0.0.1:${await closedPort()}`;
  const refused = watch(
    createAgent({
      ...options(providerFor(key, emulator, key.provider === "anthropic" ? gone : `${gone}/v1`)),
      retry: { maxAttempts: 1 },
    }),
    "refused",
  );
  const refusedOutcome = await refused.send("Anyone there?");
  outcomes.push(refusedOutcome);
  check(
    refusedOutcome.reason.kind === "error",
    `a provider with no server ended ${JSON.stringify(refusedOutcome.reason)}`,
  );
  // Refused at the door (LoopError 'invalid-prompt', nothing logged): its message is checked like every error's.
  await thrown("send (invalid prompt content)", () => refused.send([{ type: "text" } as unknown as UserContent]));
  await refused.dispose();
  // The adapters' own errors, as a library user calling provider.stream() meets them: ProviderErrors whose `cause` is the SDK's error.
  const direct = (provider: Provider, text: string) => async () => {
    const request = {
      model: MODEL[key.provider],
      messages: [{ role: "user", content: [{ type: "text", text }] }],
      signal: new AbortController().signal,
      sessionId: "direct",
    } as const;
    for await (const _chunk of provider.stream(request)) {
      // drain
    }
  };
  await thrown("provider.stream (401)", direct(providerFor(key, emulator), `${AUTH_FAIL} Direct.`));
  emulator.faults.next("http-500");
  await thrown("provider.stream (500)", direct(providerFor(key, emulator), "Direct."));
  await thrown(
    "provider.stream (refused)",
    direct(providerFor(key, emulator, key.provider === "anthropic" ? gone : `${gone}/v1`), "Direct."),
  );
  await thrown("resumeAgent(unknown id)", () =>
    resumeAgent(store, "no-such-session", options(providerFor(key, emulator))),
  );
  await thrown("createAgent(empty model)", () => createAgent({ ...options(providerFor(key, emulator)), model: "" }));
  await store.close();

  check(
    errors.filter((e) => e.where.includes("agent/error")).length >= 3 &&
      errors.some((e) => e.where === "send (invalid prompt content)"),
    `expected the 401, the 500 and the refused connection on agent/error, and the bad content refused at the door, got ${errors.map((e) => e.where).join(", ")}`,
  );
  const causes = errors.filter(
    (e) => e.where.startsWith("provider.stream") && (e.error as { cause?: unknown }).cause !== undefined,
  ).length;
  check(causes === 3, `expected the adapters' three thrown errors to carry the SDK error as cause, got ${causes}`);
  const exposures: Exposure[] = errors.map(({ where, error }) => ({ where, text: renderError(error) }));
  exposures.push({ where: "turn outcomes", text: JSON.stringify(outcomes) });
  for (const name of await readdir(root))
    exposures.push({ where: join(root, name), text: await readFile(join(root, name), "utf8") });
  const events = resumed.session.events;
  exposures.push({ where: "reconstructRequests", text: JSON.stringify(reconstructRequests(events)) });
  exposures.push({ where: "cacheReport", text: JSON.stringify(cacheReport(events)) });
  exposures.push({
    where: "emulator request records",
    text: inspect(emulator.requests, { depth: 10, breakLength: Number.POSITIVE_INFINITY }),
  });
  return { exposures, errors: errors.length };
}
