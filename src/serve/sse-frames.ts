// Server-sent-event framing (the WHATWG `text/event-stream` format): one frame per event, `id:`
// and `event:` lines when given, the data on `data:` lines (one per line of it), a blank line.
const encoder = new TextEncoder();

export interface SSEFrame {
  /** The event's id (Keelson: the log seq of a committed event); the client's `Last-Event-ID`. */
  readonly id?: string;
  readonly event?: string;
  readonly data: string;
}

/** One event as `text/event-stream` text. */
export function sseFrame(frame: SSEFrame): string {
  let text = "";
  if (frame.id !== undefined) text += `id: ${oneLine(frame.id)}\n`;
  if (frame.event !== undefined) text += `event: ${oneLine(frame.event)}\n`;
  for (const line of frame.data.split(/\r\n|\r|\n/)) text += `data: ${line}\n`;
  return `${text}\n`;
}

/** The frame's UTF-8 bytes. */
export const sseBytes = (frame: SSEFrame): Uint8Array => encoder.encode(sseFrame(frame));

/** An id-only frame: no data, so not an event — a reader (an `EventSource`) only takes it as its last event id. */
export const sseIdBytes = (id: string): Uint8Array => encoder.encode(`id: ${oneLine(id)}\n\n`);

/** The AI SDK's end marker (`data: [DONE]`), sent after the last UI chunk. */
export const SSE_DONE: SSEFrame = Object.freeze({ data: "[DONE]" });

/** Field values must not break the frame: line breaks become spaces. */
const oneLine = (value: string): string => value.replace(/[\r\n]/g, " ");
