// Builders for the agent-host tests: a manual clock (timers fire only when the test advances it),
// a JSONL store in a temp dir, a scripted profile whose model answers "re: <prompt>" and can be
// held at a gate (no sleeps: a test decides when a turn's model call returns), a store that
// records which methods were called, and readers over a stored log.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach } from "vitest";
import { type AgentHost, type AgentHostOptions, createAgentHost, type HostClock } from "../../src/host/index.js";
import { type ProviderRequest, ScriptedProvider, type ScriptedReply } from "../../src/llm/core.js";
import type { AgentProfile, TurnEvent } from "../../src/loop/index.js";
import { type LogReport, verifyLog } from "../../src/reconstruct/index.js";
import { deployTool } from "../support/approval-tools.js";
import type { SessionEvent } from "../../src/session/index.js";
import { JsonlSessionStore, type SessionStore } from "../../src/store/index.js";

/** A clock whose timers fire only from `advance`. */
export class ManualClock implements HostClock {
  #now = 0;
  readonly #timers = new Set<{ at: number; fn: () => void }>();

  now(): number {
    return this.#now;
  }

  setTimer(fn: () => void, ms: number): () => void {
    const timer = { at: this.#now + ms, fn };
    this.#timers.add(timer);
    return () => this.#timers.delete(timer);
  }

  /** Moves time on, firing every timer that falls due (in deadline order, including ones they set). */
  advance(ms: number): void {
    const until = this.#now + ms;
    for (;;) {
      const due = [...this.#timers].filter((t) => t.at <= until).sort((a, b) => a.at - b.at)[0];
      if (due === undefined) break;
      this.#timers.delete(due);
      this.#now = Math.max(this.#now, due.at);
      due.fn();
    }
    this.#now = until;
  }

  get pending(): number {
    return this.#timers.size;
  }
}

/** A temp dir for a JSONL store; `cleanup` removes it. */
export async function tempStore(): Promise<{ store: JsonlSessionStore; root: string; cleanup: () => Promise<void> }> {
  const root = await mkdtemp(join(tmpdir(), "keelson-host-"));
  const store = new JsonlSessionStore({ root });
  return {
    store,
    root,
    cleanup: async () => {
      await store.close().catch(() => undefined);
      await rm(root, { recursive: true, force: true });
    },
  };
}

export interface HostFixture {
  readonly store: JsonlSessionStore;
  readonly root: string;
  /** A host over `store` (unless another is given), on a ManualClock unless given; closed (cancelling) after the test. */
  host(options: Omit<AgentHostOptions, "store"> & { readonly store?: SessionStore }): AgentHost;
}

/** A fresh JSONL store per test, and the hosts a test makes over it, closed and removed after it. */
export function useHostFixture(): () => HostFixture {
  let current: (HostFixture & { cleanup(): Promise<void> }) | undefined;
  const hosts: AgentHost[] = [];
  beforeEach(async () => {
    const { store, root, cleanup } = await tempStore();
    current = {
      store,
      root,
      cleanup,
      host(options) {
        const host = createAgentHost({ clock: new ManualClock(), ...options, store: options.store ?? store });
        hosts.push(host);
        return host;
      },
    };
  });
  afterEach(async () => {
    for (const host of hosts.splice(0)) await host.close({ mode: "cancel" });
    await current?.cleanup();
  });
  return () => current!;
}

/** The text of the request's last user message (the prompt of the turn being answered). */
export function lastPrompt(request: ProviderRequest): string {
  const user = request.messages.filter((m) => m.role === "user").at(-1);
  const part = user?.content.find((c) => c.type === "text");
  return part?.type === "text" ? part.text : "";
}

/** A model that answers "re: <prompt>" — to a prompt in `held`, only once the test calls `release(prompt)`. */
export class GatedModel {
  readonly provider: ScriptedProvider;
  /** Prompts the model was called with, in call order. */
  readonly calls: string[] = [];
  readonly #held = new Map<string, () => void>();
  readonly #arrived = new Map<string, () => void>();
  readonly #waitingFor = new Map<string, Promise<void>>();

  constructor(held: readonly string[] = []) {
    for (const prompt of held) {
      this.#waitingFor.set(
        prompt,
        new Promise((resolve) => {
          this.#arrived.set(prompt, resolve);
        }),
      );
    }
    const gates = new Map(
      held.map((prompt) => [
        prompt,
        new Promise<void>((resolve) => {
          this.#held.set(prompt, resolve);
        }),
      ]),
    );
    this.provider = new ScriptedProvider([], {
      fallback: async (request): Promise<ScriptedReply> => {
        const prompt = lastPrompt(request);
        this.calls.push(prompt);
        this.#arrived.get(prompt)?.();
        await Promise.race([gates.get(prompt), aborted(request.signal)]);
        return { text: `re: ${prompt}` }; // after an abort the loop discards it (the step ends aborted)
      },
    });
  }

  /** Resolves once the model was called with `prompt` (it then waits for `release`). */
  called(prompt: string): Promise<void> {
    return this.#waitingFor.get(prompt) ?? Promise.reject(new Error(`${prompt} is not held`));
  }

  release(prompt: string): void {
    this.#held.get(prompt)?.();
  }
}

const aborted = (signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener("abort", () => resolve(), { once: true });
  });

/** A profile over `provider` (invariants on: every request checked against the log). */
export const profileOf = (provider: ScriptedProvider, model = "scripted:host"): AgentProfile => ({
  provider,
  model,
  system: "You are a host test.",
});

/** A store that records the names of the methods called on it, delegating to `inner` (or to `override`). */
export function recordingStore(
  inner: SessionStore,
  override: Partial<SessionStore> = {},
): { store: SessionStore; calls: string[] } {
  const calls: string[] = [];
  const seen = <T>(name: string, result: T): T => {
    calls.push(name);
    return result;
  };
  const store: SessionStore = {
    create: (header, seed) => seen("create", inner.create(header, seed)),
    append: (id, events) => seen("append", inner.append(id, events)),
    flush: (id) => seen("flush", inner.flush(id)),
    attach: (session) => seen("attach", inner.attach(session)),
    load: (id, options) => seen("load", inner.load(id, options)),
    list: () => seen("list", inner.list()),
    release: (id) => seen("release", inner.release(id)),
    close: () => seen("close", inner.close()),
    ...override,
  };
  return { store, calls };
}

/** A stored session's log, read-only, and `verifyLog` over it. */
export async function storedLog(
  store: SessionStore,
  id: string,
): Promise<{ events: readonly SessionEvent[]; report: LogReport }> {
  const { session } = await store.load(id, { readOnly: true });
  return { events: session.events, report: verifyLog(session.events) };
}

/** The user prompts of a log, turn by turn (each turn's `user/message` texts). */
export function promptsByTurn(events: readonly SessionEvent[]): string[][] {
  const turns: string[][] = [];
  for (const event of events) {
    if (event.type === "turn/start") turns.push([]);
    if (event.type === "user/message") {
      const content = (event.data as { content: { type: string; text?: string }[] }).content;
      turns.at(-1)?.push(content.map((c) => c.text ?? "").join(""));
    }
  }
  return turns;
}

export async function drain(events: AsyncIterable<TurnEvent>): Promise<TurnEvent[]> {
  const out: TurnEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

/** Lets queued microtasks and I/O callbacks run (no timers: a macrotask turn via setImmediate). */
export const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** What `run` threw or rejected with (undefined when it did neither). */
export async function refusal(run: () => unknown): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  return undefined;
}

/** A profile whose model calls `deploy` (which needs approval, deployTool) on every prompt and answers "shipped" once it ran. */
export const deployingProfile = (ran: string[]): AgentProfile => ({
  provider: () =>
    new ScriptedProvider([], {
      fallback: (request) =>
        request.messages.at(-1)?.role === "tool"
          ? { text: "shipped" }
          : { toolCalls: [{ name: "deploy", arguments: { target: "prod" } }] },
    }),
  model: "scripted:host",
  tools: [deployTool(ran)],
});
