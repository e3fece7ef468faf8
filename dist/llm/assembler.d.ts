import { type AssistantResult, type StreamChunk } from "./types.js";
export declare class BlockAssembler {
    #private;
    get finished(): boolean;
    push(chunk: StreamChunk): void;
    /** The assembled result; blocks still open are closed as they are (an aborted stream). */
    result(): AssistantResult;
}
