import type { IncomingMessage, ServerResponse } from "node:http";
import type { JsonObject } from "../json/index.js";
import type { Fault } from "./faults.js";
import { type SseEvent } from "./sse.js";
import { WireError } from "./types.js";
export declare const MAX_BODY_BYTES: number;
export declare function readBody(req: IncomingMessage): Promise<string>;
export declare function sendJson(res: ServerResponse, status: number, body: JsonObject, headers?: Readonly<Record<string, string>>): void;
export declare function sendWireError(res: ServerResponse, api: "anthropic" | "openai", error: WireError, requestId?: string): void;
/** Tracks stalled responses so `releaseStalls()` and `close()` can end them. */
export type StallSet = Set<ServerResponse>;
export declare function stall(res: ServerResponse, stalls: StallSet): void;
/** A non-stream response, with the faults that make sense for one; returns the status sent. */
export declare function writeJsonOutcome(res: ServerResponse, api: "anthropic" | "openai", body: JsonObject, fault: Fault | undefined, stalls: StallSet): number;
export interface StreamWriteOptions {
    readonly api: "anthropic" | "openai";
    readonly fault: Fault | undefined;
    /** Events sent before a stream fault strikes. */
    readonly faultAfter: number;
    readonly stalls: StallSet;
}
export declare function writeSseOutcome(res: ServerResponse, events: readonly SseEvent[], options: StreamWriteOptions): void;
