// Who may talk to the inspector: the `Host` must name this server (no DNS rebinding), and every
// data request must carry the run's access token as `Authorization: Bearer <token>` — a header
// the page sets from memory, never a cookie (cookies ignore ports: any other listener on
// 127.0.0.1 would receive one, and a second inspector would overwrite it; issue #20 F5) and
// never the query string (it would sit in the history and in logs). Compared in constant time.
import { timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";

/** True when `Host` is this server's own `127.0.0.1:<port>` or `localhost:<port>`. */
export function hostAllowed(req: IncomingMessage, port: number): boolean {
  const host = req.headers.host ?? "";
  return host === `127.0.0.1:${port}` || host === `localhost:${port}`;
}

/** True when the request's `Authorization: Bearer` header carries `token` (a cookie or `?token=` does not count). */
export function bearerAuthorized(req: IncomingMessage, token: string): boolean {
  const bearer = /^Bearer ([A-Za-z0-9_-]+)$/.exec(req.headers.authorization ?? "");
  if (bearer === null) return false;
  const got = Buffer.from(bearer[1]!);
  const want = Buffer.from(token);
  return got.length === want.length && timingSafeEqual(got, want);
}

/**
 * The URL `keelson inspect` prints: the token (and the session to open) in the fragment, which
 * the browser never sends; the page moves it into memory and drops it from the address bar.
 */
export function pageUrl(origin: string, token: string, sessionId?: string): string {
  const session = sessionId === undefined ? "" : `&session=${encodeURIComponent(sessionId)}`;
  return `${origin}/#token=${token}${session}`;
}
