// The front end's access to the server: same-origin fetches carrying the access token as a
// header (access.ts), and the live stream read from a streaming fetch (EventSource cannot send
// a header), parsed as Server-Sent Events.
import type { LiveAppend, LiveNotice } from "../live.js";
import { authorization } from "./access.js";

export class ApiError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

async function fetchOk(path: string, signal?: AbortSignal): Promise<Response> {
  const res = await fetch(path, { headers: authorization(), credentials: "omit", ...(signal ? { signal } : {}) });
  if (!res.ok) {
    const body = await res.text();
    let message = body;
    try {
      message = (JSON.parse(body) as { message?: string }).message ?? body;
    } catch {
      // plain text
    }
    throw new ApiError(res.status, `${res.status}: ${message}`);
  }
  return res;
}

export async function getJson<T>(path: string): Promise<T> {
  return (await (await fetchOk(path)).json()) as T;
}

export async function getText(path: string): Promise<string> {
  return (await fetchOk(path)).text();
}

export const sessionPath = (id: string, rest = ""): string => `/api/sessions/${encodeURIComponent(id)}${rest}`;

export interface LiveHandlers {
  readonly onAppend: (message: LiveAppend) => void;
  /** How the server follows the session (notifications, or polling when they do not arrive). */
  readonly onNotice: (notice: LiveNotice) => void;
  /** A problem the server reported, or the stream ending. */
  readonly onProblem: (message: string) => void;
}

/** Follows a session from event `from` on; returns a function that stops. */
export function followSession(id: string, from: number, on: LiveHandlers): () => void {
  const abort = new AbortController();
  const dispatch = (block: string): void => {
    const event = /^event: (.*)$/m.exec(block)?.[1];
    const data = /^data: (.*)$/m.exec(block)?.[1];
    if (event === undefined || data === undefined) return; // a comment (keep-alive)
    if (event === "append") on.onAppend(JSON.parse(data) as LiveAppend);
    else if (event === "notice") on.onNotice(JSON.parse(data) as LiveNotice);
    else if (event === "problem") on.onProblem((JSON.parse(data) as { message: string }).message);
  };
  void (async () => {
    const res = await fetchOk(sessionPath(id, `/live?from=${from}`), abort.signal);
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      for (let cut = buffer.indexOf("\n\n"); cut >= 0; cut = buffer.indexOf("\n\n")) {
        dispatch(buffer.slice(0, cut));
        buffer = buffer.slice(cut + 2);
      }
    }
    on.onProblem("the live stream ended (reload to follow the session again)");
  })().catch((error: unknown) => {
    if (!abort.signal.aborted) on.onProblem(`live stream: ${error instanceof Error ? error.message : String(error)}`);
  });
  return () => abort.abort();
}
