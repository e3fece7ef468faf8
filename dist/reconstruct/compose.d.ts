import type { EpochHeader } from "../header/index.js";
import type { Message } from "../messages/index.js";
import type { ModelRequest } from "../llm/core.js";
export declare function composeRequest(header: EpochHeader, history: readonly Message[]): ModelRequest;
