import type { EpochHeader } from "../header/index.js";
import type { Message } from "../messages/index.js";
import type { LoopRequest } from "./types.js";
export declare function composeRequest(header: EpochHeader, history: readonly Message[]): LoopRequest;
