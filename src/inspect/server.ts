// The inspector's HTTP server (node:http): bound to 127.0.0.1 only, every request must name this
// server in `Host` (no DNS rebinding), and every data request (`/api/…`, the live stream
// included) must carry the access token as `Authorization: Bearer` (access.ts: no cookie, no
// `?token=`; the page shell and its two assets hold no data and load without it). GET only: the
// static front end, the JSON endpoints (README.md) and a Server-Sent Events stream per session.
// Read-only by construction: it only calls `InspectSource.list / load / watch`.
import { errorMessage } from "../errors/index.js";
import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { extname, join, resolve } from "node:path";
import { StoreError } from "../store/index.js";
import { bearerAuthorized, hostAllowed, pageUrl } from "./access.js";
import { sessionsPayload } from "./session-summary.js";
import { SessionViews } from "./session-views.js";
import { withParentSeq, withSubagentProblems } from "./subagent-view.js";
import { liveStream } from "./live.js";
import { InspectError, type InspectReplay, type InspectSource, type ReplayPayload } from "./types.js";
import { INSPECTED_WIRES, type InspectedWire } from "./wire-payload.js";

export interface InspectServerOptions {
  readonly source: InspectSource;
  /** 0 (default) picks a free port. */
  readonly port?: number;
  /** The access token (base64url characters, at least 16); default 32 random bytes, base64url. */
  readonly token?: string;
  /** The built front end (default: the package's `dist/inspect/ui`). */
  readonly assetsDir?: string;
  /** Opened by the printed URL (`#…&session=<id>`). */
  readonly sessionId?: string;
  /** The most request messages one view may hold at once (the cache report); default 4,000,000. */
  readonly maxHeldMessages?: number;
  /**
   * Serves `/api/sessions/:id/replay` (and the page's Replay tab): the session replayed with the
   * current code. The inspector cannot build an agent itself (its layer stays below the loop), so
   * whoever starts it passes the replay — `keelson inspect` passes one with the CLI's own
   * configuration. Without it the endpoint is 404.
   */
  readonly replay?: InspectReplay;
}

export interface InspectServer {
  /** The URL to open: the token (and the session, when one was given) in its fragment. */
  readonly url: string;
  readonly origin: string;
  readonly port: number;
  readonly token: string;
  close(): Promise<void>;
}

/** src/inspect/x.ts and dist/inspect/x.js both sit two levels under the package root. */
export const DEFAULT_ASSETS_DIR = resolve(import.meta.dirname, "../../dist/inspect/ui");

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".map": "application/json; charset=utf-8",
};

/** One running inspector: its options and what it holds between requests. */
interface InspectState {
  readonly source: InspectSource;
  readonly token: string;
  readonly assetsDir: string;
  readonly sessionId: string | undefined;
  readonly maxHeldMessages: number | undefined;
  readonly replay: InspectReplay | undefined;
  /** A replay per view (the log it was loaded from), computed once. */
  readonly replays: WeakMap<SessionViews, Promise<ReplayPayload>>;
  /** The views of the sessions asked for lately (at most 16, least recently asked dropped). */
  readonly views: Map<string, SessionViews>;
  /** Open live streams, ended by close(). */
  readonly streams: Set<ServerResponse>;
  /** The port it listens on (0 until it does). */
  port: number;
}

export async function startInspectServer(options: InspectServerOptions): Promise<InspectServer> {
  const token = options.token ?? randomBytes(32).toString("base64url");
  if (!/^[A-Za-z0-9_-]{16,}$/.test(token))
    throw new InspectError("bad-option", "the access token must be at least 16 base64url characters");
  const state: InspectState = {
    source: options.source,
    token,
    assetsDir: options.assetsDir ?? DEFAULT_ASSETS_DIR,
    sessionId: options.sessionId,
    maxHeldMessages: options.maxHeldMessages,
    replay: options.replay,
    replays: new WeakMap(),
    views: new Map(),
    streams: new Set(),
    port: 0,
  };
  const server: Server = createServer((req, res) => {
    handle(state, req, res).catch((error: unknown) => sendError(res, error));
  });
  await new Promise<void>((done, fail) => {
    server.once("error", fail);
    server.listen(options.port ?? 0, "127.0.0.1", () => {
      server.off("error", fail);
      done();
    });
  });
  state.port = (server.address() as AddressInfo).port;
  const origin = `http://127.0.0.1:${state.port}`;
  return {
    url: pageUrl(origin, token, options.sessionId),
    origin,
    port: state.port,
    token,
    close: async () => {
      for (const res of state.streams) res.end();
      await new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections();
      });
    },
  };
}

/** Session `id`'s views: the held ones while the log is unchanged, else fresh ones over a new load. */
async function viewsOf(state: InspectState, id: string): Promise<SessionViews> {
  const loaded = await state.source.load(id);
  const known = state.views.get(id);
  if (known?.sameLog(loaded)) return known;
  const fresh = new SessionViews(
    loaded,
    state.maxHeldMessages === undefined ? {} : { maxHeldMessages: state.maxHeldMessages },
  );
  state.views.delete(id);
  state.views.set(id, fresh);
  if (state.views.size > 16) state.views.delete(state.views.keys().next().value!);
  return fresh;
}

/** The session replayed (once per loaded log), or 404 when the inspector was started without a replay. */
function replayOf(state: InspectState, views: SessionViews): Promise<ReplayPayload> {
  const replay = state.replay;
  if (replay === undefined)
    throw new InspectError("not-found", "this inspector was started without replay (keelson inspect serves it)");
  let known = state.replays.get(views);
  if (known === undefined) {
    known = replay(views.loaded.session);
    state.replays.set(views, known);
    known.catch(() => state.replays.delete(views)); // a failed replay is tried again next time
  }
  return known;
}

/** One request: the host and method checks, then an asset, or a data endpoint behind the token. */
async function handle(state: InspectState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  let url: URL;
  try {
    url = new URL(req.url ?? "/", "http://127.0.0.1");
  } catch {
    throw new InspectError("bad-request", "not a request path");
  }
  if (!hostAllowed(req, state.port))
    return send(
      res,
      421,
      "text/plain",
      `this inspector serves 127.0.0.1:${state.port}, not ${JSON.stringify(req.headers.host ?? "")}\n`,
    );
  if (req.method !== "GET" && req.method !== "HEAD")
    return send(res, 405, "text/plain", "405: the inspector is read-only (GET only)\n");
  if (!url.pathname.startsWith("/api/")) return serveAsset(res, state.assetsDir, url.pathname);
  if (!bearerAuthorized(req, state.token))
    return send(
      res,
      401,
      "application/json; charset=utf-8",
      JSON.stringify({
        error: "unauthorized",
        message: "missing or wrong access token: open the URL keelson inspect printed",
      }),
      { "WWW-Authenticate": "Bearer" },
    );
  return handleApi(state, req, res, url);
}

/** `/api/config`, `/api/sessions`, and one session's endpoints (README.md's table). */
async function handleApi(state: InspectState, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  const parts = pathParts(url.pathname);
  if (parts[0] === "config" && parts.length === 1)
    return json(res, { source: state.source.label, ...(state.sessionId ? { sessionId: state.sessionId } : {}) });
  if (parts[0] !== "sessions") throw new InspectError("not-found", `no endpoint ${url.pathname}`);
  if (parts.length === 1) return json(res, sessionsPayload(state.source.label, await state.source.list()));
  const id = parts[1]!;
  const rest = parts.slice(2);
  if (rest[0] === "live" && rest.length === 1) {
    const from = Number(url.searchParams.get("from") ?? "0");
    if (!Number.isSafeInteger(from) || from < 0)
      throw new InspectError("bad-request", `bad from=${url.searchParams.get("from")}`);
    await viewsOf(state, id); // 404 before the stream starts
    return liveStream(req, res, state.streams, state.source, id, from, (sid) => viewsOf(state, sid));
  }
  const views = await viewsOf(state, id);
  if (rest.length === 0)
    return json(
      res,
      await withParentSeq(views.session(), async (parent) => (await viewsOf(state, parent)).loaded.session),
    );
  if (rest[0] === "verify" && rest.length === 1)
    return json(res, await withSubagentProblems(views.verify, views.loaded, (child) => state.source.load(child)));
  if (rest[0] === "replay" && rest.length === 1) return json(res, await replayOf(state, views));
  return sessionEndpoint(res, url, id, rest, views);
}

/** `/api/sessions/:id/<rest>`: one event, the requests, the header changes, the cache report, verify. */
function sessionEndpoint(
  res: ServerResponse,
  url: URL,
  id: string,
  rest: readonly string[],
  v: SessionViews,
): void | Promise<void> {
  switch (rest[0]) {
    case "events": {
      const seq = Number(rest[1]);
      const event = Number.isSafeInteger(seq) ? v.loaded.session.events[seq] : undefined;
      if (event === undefined || rest.length !== 2) throw new InspectError("not-found", `no event ${rest[1]} in ${id}`);
      return json(res, event);
    }
    case "requests": {
      if (rest.length === 1)
        return url.searchParams.get("format") === "cli"
          ? stream(res, "application/json; charset=utf-8", v.requestsText())
          : json(res, v.requestList);
      const request = v.request(Number(rest[1]));
      if (request === undefined)
        throw new InspectError("not-found", `no request ${rest[1]}: this session has ${v.requests.length}`);
      if (rest.length === 2) return json(res, request);
      const wire = rest[3] as InspectedWire;
      if (rest[2] === "wire" && rest.length === 4 && INSPECTED_WIRES.includes(wire))
        return send(res, 200, "application/json; charset=utf-8", request.wire[wire]);
      break;
    }
    case "headers":
      if (rest.length === 1) return json(res, v.headers);
      break;
    case "cache":
      // The body is `keelson cache --json`'s output, byte for byte (less the final newline).
      if (rest.length === 1) return send(res, 200, "application/json; charset=utf-8", JSON.stringify(v.cache, null, 2));
      break;
  }
  throw new InspectError("not-found", `no endpoint ${url.pathname}`);
}

/** A failed request: its error as JSON with the status its code maps to (or the body cut short once started). */
function sendError(res: ServerResponse, error: unknown): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const [status, code] = httpStatusOf(error);
  json(res, { error: code, message: errorMessage(error) }, status);
}

/** The segments after `/api/`, percent-decoded; malformed percent-encoding is a bad request (400). */
function pathParts(path: string): string[] {
  try {
    return path.slice("/api/".length).split("/").map(decodeURIComponent);
  } catch (error) {
    if (!(error instanceof URIError)) throw error;
    throw new InspectError("bad-request", "malformed percent-encoding in the path");
  }
}

const STATUS: Partial<Record<InspectError["code"], number>> = {
  "not-found": 404,
  "no-ui": 500,
  "too-large": 413,
  unprocessable: 422,
};

/** The HTTP status and the `error` code a failed request answers with. */
function httpStatusOf(error: unknown): [number, string] {
  if (error instanceof InspectError) return [STATUS[error.code] ?? 400, error.code];
  if (error instanceof StoreError)
    return [error.code === "not-found" ? 404 : error.code === "invalid-id" ? 400 : 422, error.code];
  return [500, "internal"];
}

const headersOf = (type: string): Record<string, string> => ({
  "Content-Type": type,
  "Cache-Control": "no-store",
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
  "Content-Security-Policy": "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:",
});

function send(
  res: ServerResponse,
  status: number,
  type: string,
  body: string | Buffer,
  extra: Record<string, string> = {},
): void {
  res.writeHead(status, { ...extra, ...headersOf(type) });
  res.end(body);
}

/**
 * Writes `chunks` as a 200 body, waiting for the socket to drain between them (memory stays one
 * chunk, however long the body). The first chunk is taken before the status is sent, so a
 * failure there is still an error response; a later one cuts the body short.
 */
async function stream(res: ServerResponse, type: string, chunks: Iterator<string>): Promise<void> {
  let next = chunks.next();
  res.writeHead(200, headersOf(type));
  while (next.done !== true) {
    if (res.destroyed) return;
    if (!res.write(next.value))
      await new Promise<void>((done) => {
        const resume = (): void => {
          res.off("drain", resume);
          res.off("close", resume);
          done();
        };
        res.on("drain", resume);
        res.on("close", resume);
      });
    next = chunks.next();
  }
  res.end();
}

function json(res: ServerResponse, value: unknown, status = 200): void {
  send(res, status, "application/json; charset=utf-8", JSON.stringify(value));
}

async function serveAsset(res: ServerResponse, dir: string, path: string): Promise<void> {
  const name = path === "/" ? "index.html" : path.slice(1);
  if (!/^[a-z0-9-]+\.(html|js|css|map)$/.test(name)) throw new InspectError("not-found", `no asset ${path}`);
  let body: Buffer;
  try {
    body = await readFile(join(dir, name));
  } catch {
    if (name === "index.html")
      throw new InspectError(
        "no-ui",
        `the inspector's front end is not built (${dir} has no index.html): run npm run build`,
      );
    throw new InspectError("not-found", `no asset ${path}`);
  }
  send(res, 200, TYPES[extname(name)]!, body);
}
