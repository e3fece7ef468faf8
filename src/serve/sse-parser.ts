// SSEParser: the WHATWG `text/event-stream` parsing rules over decoded text in arbitrary pieces —
// lines end with CRLF, LF or CR (a CR at the end of one piece may pair with an LF in the next),
// `:` starts a comment, a field's value loses one leading space, `data` lines join with "\n",
// a blank line dispatches the event (when it has data; an id with none is returned as `idOnly`). Bounded, so a hostile server cannot grow
// memory without end: an event whose data (its lines joined) is longer than `maxEventChars`, and
// a line of any field longer than that plus `data: `, are errors — the same whichever way the
// bytes were split (a line still incomplete is held to the line's bound, never the data's).
import { ServeError } from "./types.js";

export interface ParsedSSEEvent {
  /** `event:` (default "message"). */
  readonly event: string;
  readonly data: string;
  /** The `id:` given with this event, if any. */
  readonly id?: string;
  /**
   * An `id:` with no data: not an event (an `EventSource` dispatches none), only a new last
   * event id — what Keelson's encoder sends once the events before it are durable.
   */
  readonly idOnly?: true;
}

export class SSEParser {
  readonly #maxChars: number;
  #buffer = "";
  #skipLF = false;
  #event = "";
  #data: string[] = [];
  /** The length of the event's data so far: its lines joined with "\n". */
  #dataChars = 0;
  #id: string | undefined;
  /** An event or line over the bound, found after events a push returned: thrown by the next call. */
  #failure: ServeError | undefined;

  /** The longest line: a data line that carries a whole event's data, `data: ` included. */
  readonly #maxLineChars: number;

  constructor(maxEventChars: number) {
    this.#maxChars = maxEventChars;
    this.#maxLineChars = maxEventChars + "data: ".length;
  }

  /**
   * The events completed by `text` (the next decoded piece of the stream). An event or line over the
   * bound throws — after the events completed before it are returned, when there are some: then
   * `check()` (or the next push) throws it, so what a reader sees first does not hang on the split.
   */
  push(text: string): ParsedSSEEvent[] {
    this.check();
    // An empty read: a CR that ended the last piece may still pair with an LF in the next.
    if (text === "") return [];
    const out: ParsedSSEEvent[] = [];
    try {
      this.#parse(text, out);
    } catch (error) {
      if (!(error instanceof ServeError) || out.length === 0) throw error;
      this.#failure = error;
    }
    return out;
  }

  /** Throws the bound's error a push found after the events it returned. */
  check(): void {
    if (this.#failure !== undefined) throw this.#failure;
  }

  #parse(text: string, out: ParsedSSEEvent[]): void {
    let start = 0;
    let i = 0;
    let input = text;
    if (this.#skipLF && input.startsWith("\n")) input = input.slice(1);
    this.#skipLF = false;
    for (; i < input.length; i++) {
      const c = input.charCodeAt(i);
      if (c !== 10 && c !== 13) continue;
      const line = this.#buffer + input.slice(start, i);
      this.#buffer = "";
      if (line.length > this.#maxLineChars) this.#tooLarge();
      if (c === 13) {
        if (i + 1 === input.length) this.#skipLF = true;
        else if (input.charCodeAt(i + 1) === 10) i++;
      }
      start = i + 1;
      const event = this.#line(line);
      if (event !== undefined) out.push(event);
    }
    this.#buffer += input.slice(start);
    if (this.#buffer.length > this.#maxLineChars) this.#tooLarge(); // the line, once whole, would be too
  }

  #line(line: string): ParsedSSEEvent | undefined {
    if (line === "") return this.#dispatch();
    if (line.startsWith(":")) return undefined;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") {
      this.#dataChars += (this.#data.length === 0 ? 0 : 1) + value.length;
      if (this.#dataChars > this.#maxChars) this.#tooLarge();
      this.#data.push(value);
    } else if (field === "event") this.#event = value;
    else if (field === "id" && !value.includes("\0")) this.#id = value;
    return undefined;
  }

  #dispatch(): ParsedSSEEvent | undefined {
    const data = this.#data;
    const event = this.#event === "" ? "message" : this.#event;
    const id = this.#id;
    this.#data = [];
    this.#dataChars = 0;
    this.#event = "";
    this.#id = undefined;
    if (data.length === 0) return id === undefined ? undefined : { event, data: "", id, idOnly: true };
    return { event, data: data.join("\n"), ...(id === undefined ? {} : { id }) };
  }

  #tooLarge(): never {
    throw new ServeError("event-too-large", `an SSE event is longer than ${this.#maxChars} characters`);
  }
}
