import type { Message } from "../messages/index.js";
import type { Agent, CompactionGate } from "../loop/index.js";
import { type CompactionOptions, type Pressure } from "./types.js";
export interface Compaction extends CompactionGate {
    /** Compacts now (a manual `agent.compact()`), whatever the pressure. */
    compactNow(agent: Agent, fullSystemPrompt: string, sessionPrefix: readonly Message[], signal: AbortSignal): Promise<void>;
    /** The last pressure measured for `agent` (for status lines and tests). */
    lastPressure(agent: Agent): Pressure | undefined;
}
export declare function createCompaction(options?: CompactionOptions): Compaction;
