// What the W2S worker drives: one runner that, per timed turn, obtains a runnable agent over a
// prepared session of H messages, runs one turn of the script, and releases it. Preparation
// (building the history, writing the stored copies) happens in the factory, untimed. Loaded
// lazily by name so a worker process imports only the runner it measures (its peak RSS is then
// attributable).
import type { LoopScript } from "../w2/script.js";
import type { HistoryShape } from "./history.js";

export interface PreparedHistory {
  readonly shape: HistoryShape;
  /** Exactly this many messages in every prepared session. */
  readonly messages: number;
  /** Prepared sessions to provide: turn `i` runs over the i-th (runners that fork share one parent). */
  readonly sessions: number;
}

export interface StoredRunner {
  /**
   * The timed unit: obtain an agent over prepared session `index`, send `prompt`, wait for the
   * turn to end, release the agent. Returns a reader of the history length after the turn,
   * called after the timer stops (deriving it is not part of the cost).
   */
  turn(index: number, prompt: string): Promise<() => number>;
  dispose(): Promise<void>;
}

export type StoredRunnerFactory = (history: PreparedHistory, script: LoopScript) => Promise<StoredRunner>;

export const RUNNERS = {
  "pi-agent-core Agent": async () => (await import("./pi.js")).piAgentPerTurn,
  "pi agentLoop": async () => (await import("./pi.js")).piAgentLoop,
  "ai-sdk generateText": async () => (await import("./ai-sdk.js")).aiSdkGenerate,
  "keelson in memory": async () => (await import("./keelson.js")).keelsonInMemory,
  "keelson+jsonl resume": async () => (await import("./keelson.js")).keelsonJsonlResume,
  "keelson+jsonl resume, turn durability": async () => (await import("./keelson.js")).keelsonJsonlResumeTurnDurability,
  "keelson+jsonl fork": async () => (await import("./keelson.js")).keelsonJsonlFork,
} satisfies Record<string, () => Promise<StoredRunnerFactory>>;

export type RunnerName = keyof typeof RUNNERS;

export const isRunnerName = (name: string): name is RunnerName => Object.hasOwn(RUNNERS, name);
