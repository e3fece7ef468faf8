export interface SseEvent {
    /** The `event:` line; OpenAI events have none. */
    readonly event?: string;
    readonly data: string;
}
export declare function formatSse(event: SseEvent): string;
/** Parses a complete SSE body back into events (used by tests and by golden transcripts). */
export declare function parseSse(body: string): SseEvent[];
