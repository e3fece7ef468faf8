// Telling "still connecting" from "connected, waiting for the answer" for a fetch-based SDK
// call. fetch exposes neither, but Node's fetch (undici) publishes its steps on
// `node:diagnostics_channel`: `undici:request:create` when a request to an origin is queued,
// `undici:client:sendHeaders` once its headers are written on a connected socket. A watch
// follows one origin; a request to it being created proves the fetch in use reports its steps
// (a custom fetch may not: then the watch never claims anything, and the caller falls back to
// its first-byte deadline). Concurrent requests to the same origin are not told apart: another
// request's connection counts as this one's, which can only make a connect timeout less
// eager, never fire one wrongly.
import diagnostics from "node:diagnostics_channel";

const CREATE = "undici:request:create";
const SEND_HEADERS = "undici:client:sendHeaders";

type Message = { readonly request?: { readonly origin?: unknown } };

export class ConnectionWatch {
  readonly #origin: string;
  readonly #onConnected: () => void;
  #observed = false;
  #connected = false;
  readonly #onCreate = (message: unknown): void => {
    if (this.#matches(message)) this.#observed = true;
  };
  readonly #onSendHeaders = (message: unknown): void => {
    if (!this.#matches(message) || this.#connected) return;
    this.#connected = true;
    this.#onConnected();
  };

  /** Watches requests to `origin` (`scheme://host[:port]`, as `new URL(…).origin` gives it). */
  constructor(origin: string, onConnected: () => void) {
    this.#origin = origin;
    this.#onConnected = onConnected;
    diagnostics.subscribe(CREATE, this.#onCreate);
    diagnostics.subscribe(SEND_HEADERS, this.#onSendHeaders);
  }

  /** True once the fetch in use reported a request to the origin: its connect phase is observable. */
  get observed(): boolean {
    return this.#observed;
  }

  get connected(): boolean {
    return this.#connected;
  }

  close(): void {
    diagnostics.unsubscribe(CREATE, this.#onCreate);
    diagnostics.unsubscribe(SEND_HEADERS, this.#onSendHeaders);
  }

  #matches(message: unknown): boolean {
    const origin = (message as Message | undefined)?.request?.origin;
    return origin !== undefined && String(origin).replace(/\/$/, "") === this.#origin;
  }
}

/** The origin of a base URL, or `undefined` when it does not parse. */
export function originOf(baseURL: string): string | undefined {
  try {
    return new URL(baseURL).origin;
  } catch {
    return undefined;
  }
}
