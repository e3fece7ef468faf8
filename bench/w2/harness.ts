// What the W2 worker drives: one loop implementation with its mock model wired to a LoopScript,
// over a pre-filled history in its own message format. Loaded lazily by name so a worker
// process imports only the harness it measures (its peak RSS is then attributable).
import type { LoopScript } from "./script.js";

export interface LoopHarness {
  /** Sends `prompt` and resolves when the harness's own loop has ended the turn. */
  turn(prompt: string): Promise<void>;
  /** Messages in the harness's history now (the next request's conversation). */
  historyLength(): number;
  dispose(): Promise<void>;
}

export type HarnessFactory = (messages: number, script: LoopScript) => Promise<LoopHarness>;

export const HARNESSES = {
  keelson: async () => (await import("./keelson.js")).keelsonNoStore,
  "keelson+jsonl": async () => (await import("./keelson.js")).keelsonJsonl,
  "keelson stream()": async () => (await import("./keelson.js")).keelsonStream,
  "keelson send()+bare tap": async () => (await import("./keelson.js")).keelsonBareTap,
  "ai-sdk generateText": async () => (await import("./ai-sdk.js")).aiSdkGenerate,
  "ai-sdk streamText": async () => (await import("./ai-sdk.js")).aiSdkStream,
  "pi-agent-core": async () => (await import("./pi-agent.js")).piAgent,
  "naive stringify": async () => (await import("./naive.js")).naive,
} satisfies Record<string, () => Promise<HarnessFactory>>;

export type HarnessName = keyof typeof HARNESSES;

export const isHarnessName = (name: string): name is HarnessName => Object.hasOwn(HARNESSES, name);
