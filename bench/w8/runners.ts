// W8's runners: how one row gets a turn streamed for a session. The baselines drive agents
// directly — `createAgent` per session, then `agent.stream` once per turn, in memory or over the
// JSONL store — and the host rows drive `host.stream(sessionId, prompt)` over the JSONL or the
// PostgreSQL store, so the host's own cost is the difference to "agents + JSONL".
import { type AgentHost, createAgentHost } from "../../src/host/index.js";
import {
  type Agent,
  type AgentProfile,
  createAgent,
  profileAgentOptions,
  type TurnStream,
} from "../../src/loop/index.js";
import { JsonlSessionStore, type SessionStore } from "../../src/store/index.js";
import { PostgresSessionStore } from "../../src/store/postgres/index.js";

export type W8RunnerName = "agents, in memory" | "agents + JSONL" | "host + JSONL" | "host + PostgreSQL";

export interface Runner {
  /** Creates session `id` before its first turn (the agent runners; the host opens on demand). */
  open?(id: string): Promise<void>;
  /** Streams one turn of session `id` (the caller awaits each turn's end before the next). */
  turn(id: string, prompt: string): TurnStream;
  /** Disposes every agent (flushed, released) and closes the store. */
  close(): Promise<void>;
}

export interface RunnerSetup {
  readonly name: W8RunnerName;
  readonly profile: AgentProfile;
  /** JSONL root (JSONL rows). */
  readonly root?: string;
  /** PostgreSQL URL (PostgreSQL rows). */
  readonly url?: string;
  readonly sessions: number;
}

export function openRunner(setup: RunnerSetup): Runner {
  switch (setup.name) {
    case "agents, in memory":
      return new AgentsRunner(setup.profile, undefined);
    case "agents + JSONL":
      return new AgentsRunner(setup.profile, new JsonlSessionStore({ root: setup.root! }));
    case "host + JSONL":
      return new HostRunner(setup, new JsonlSessionStore({ root: setup.root! }));
    case "host + PostgreSQL":
      return new HostRunner(setup, new PostgresSessionStore({ url: setup.url!, poolSize: 16 }));
  }
}

class AgentsRunner implements Runner {
  readonly #agents = new Map<string, Agent>();
  readonly #profile: AgentProfile;
  readonly #store: SessionStore | undefined;

  constructor(profile: AgentProfile, store: SessionStore | undefined) {
    this.#profile = profile;
    this.#store = store;
  }

  async open(id: string): Promise<void> {
    const options = await profileAgentOptions(this.#profile, { profile: "bench", sessionId: id });
    this.#agents.set(
      id,
      createAgent({ ...options, sessionId: id, ...(this.#store === undefined ? {} : { store: this.#store }) }),
    );
  }

  turn(id: string, prompt: string): TurnStream {
    const agent = this.#agents.get(id);
    if (agent === undefined) throw new Error(`session ${id} was not opened`);
    return agent.stream(prompt);
  }

  async close(): Promise<void> {
    await Promise.all([...this.#agents.values()].map((agent) => agent.dispose()));
    this.#agents.clear(); // as the host forgets its sessions: their logs can be collected
    await this.#store?.close();
  }
}

class HostRunner implements Runner {
  readonly #host: AgentHost;
  readonly #store: SessionStore;
  constructor(setup: RunnerSetup, store: SessionStore) {
    this.#store = store;
    this.#host = createAgentHost({
      store,
      profile: setup.profile,
      maxOpen: setup.sessions,
      idleMs: Number.POSITIVE_INFINITY,
    });
  }

  turn(id: string, prompt: string): TurnStream {
    return this.#host.stream(id, prompt);
  }

  async close(): Promise<void> {
    await this.#host.close();
    await this.#store.close();
  }
}
