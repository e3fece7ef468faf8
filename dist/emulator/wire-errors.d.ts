import type { JsonObject } from "../json/index.js";
import type { ProviderFailure } from "../llm/index.js";
import { WireError, type WireErrorKind } from "./types.js";
/** The Anthropic error object, as both the HTTP body and the in-stream `error` event carry it. */
export declare function anthropicErrorBody(kind: WireErrorKind, message: string, requestId?: string): JsonObject;
export declare function openaiErrorBody(kind: WireErrorKind, message: string, param?: string | null): JsonObject;
/** The HTTP error a scripted `{ error }` reply stands for. */
export declare function failureToWireError(failure: ProviderFailure): WireError;
