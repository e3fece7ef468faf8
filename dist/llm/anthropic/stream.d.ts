import type Anthropic from "@anthropic-ai/sdk";
import { type StreamChunk } from "../types.js";
type Event = Anthropic.Messages.RawMessageStreamEvent;
export declare class AnthropicStreamMapper {
    #private;
    /** True once message_stop arrived (a stream that ends before it was cut). */
    get stopped(): boolean;
    map(event: Event): StreamChunk[];
}
export {};
