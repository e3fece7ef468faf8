// The front end's access to the server: same-origin fetches (the token travels in the HttpOnly
// cookie the first page load set) and the live EventSource.
import type { LiveAppend } from "../live.js";

export class ApiError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

async function fetchOk(path: string): Promise<Response> {
  const res = await fetch(path, { credentials: "same-origin" });
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

/** Follows a session from event `from` on; returns a function that stops. */
export function followSession(id: string, from: number, onAppend: (message: LiveAppend) => void): () => void {
  const source = new EventSource(sessionPath(id, `/live?from=${from}`));
  source.addEventListener("append", (e) => onAppend(JSON.parse((e as MessageEvent<string>).data) as LiveAppend));
  return () => source.close();
}
