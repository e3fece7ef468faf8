// The inspector's HTTP server (node:http): bound to 127.0.0.1 only, every request must carry the
// access token (`?token=` once, which sets an HttpOnly SameSite=Strict cookie, then the cookie
// or an `Authorization: Bearer` header; anything else is 401) and name this server in `Host`
// (no DNS rebinding). GET only: the static front end, the JSON endpoints (README.md) and a
// Server-Sent Events stream per session. Read-only by construction: it only calls
// `InspectSource.list / load / watch`.
import { randomBytes, timingSafeEqual } from "node:crypto";
import { readFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { extname, join, resolve } from "node:path";
import { StoreError } from "../store/index.js";
import { sessionsPayload } from "./session-summary.js";
import { SessionViews } from "./session-views.js";
import { liveStream } from "./live.js";
import { InspectError, type InspectSource } from "./types.js";
import { WIRES, type Wire } from "./wire-payload.js";

export interface InspectServerOptions {
  readonly source: InspectSource;
  /** 0 (default) picks a free port. */
  readonly port?: number;
  /** The access token; default 32 random bytes, base64url. */
  readonly token?: string;
  /** The built front end (default: the package's `dist/inspect/ui`). */
  readonly assetsDir?: string;
  /** Opened by the printed URL (`#/session/<id>`). */
  readonly sessionId?: string;
}

export interface InspectServer {
  /** The URL to open, with the token (and the session, when one was given). */
  readonly url: string;
  readonly origin: string;
  readonly port: number;
  readonly token: string;
  close(): Promise<void>;
}

const COOKIE = "keelson_inspect";

/** src/inspect/x.ts and dist/inspect/x.js both sit two levels under the package root. */
export const DEFAULT_ASSETS_DIR = resolve(import.meta.dirname, "../../dist/inspect/ui");

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".map": "application/json; charset=utf-8",
};

export async function startInspectServer(options: InspectServerOptions): Promise<InspectServer> {
  const token = options.token ?? randomBytes(32).toString("base64url");
  const assetsDir = options.assetsDir ?? DEFAULT_ASSETS_DIR;
  const views = new Map<string, SessionViews>();
  const streams = new Set<ServerResponse>();
  let port = 0;

  const viewsOf = async (id: string): Promise<SessionViews> => {
    const loaded = await options.source.load(id);
    const known = views.get(id);
    if (known?.sameLog(loaded)) return known;
    const fresh = new SessionViews(loaded);
    views.delete(id);
    views.set(id, fresh);
    if (views.size > 16) views.delete(views.keys().next().value!);
    return fresh;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const host = req.headers.host ?? "";
    if (host !== `127.0.0.1:${port}` && host !== `localhost:${port}`)
      return send(res, 421, "text/plain", `this inspector serves 127.0.0.1:${port}, not ${JSON.stringify(host)}\n`);
    const queryToken = url.searchParams.get("token");
    if (!authorized(req, token, queryToken))
      return send(
        res,
        401,
        "text/plain",
        "401: missing or wrong access token (open the URL keelson inspect printed)\n",
      );
    if (req.method !== "GET" && req.method !== "HEAD")
      return send(res, 405, "text/plain", "405: the inspector is read-only (GET only)\n");
    if (queryToken !== null && !url.pathname.startsWith("/api/")) {
      // Trade the URL's token for a cookie, and drop it from the address bar.
      res.setHeader("Set-Cookie", `${COOKIE}=${token}; HttpOnly; SameSite=Strict; Path=/`);
      url.searchParams.delete("token");
      res.writeHead(302, { Location: `${url.pathname}${url.search}` }).end();
      return;
    }
    const path = url.pathname;
    if (!path.startsWith("/api/")) return serveAsset(res, assetsDir, path);
    const parts = path.slice("/api/".length).split("/").map(decodeURIComponent);
    if (parts[0] === "config" && parts.length === 1)
      return json(res, {
        source: options.source.label,
        ...(options.sessionId ? { sessionId: options.sessionId } : {}),
      });
    if (parts[0] !== "sessions") throw new InspectError("not-found", `no endpoint ${path}`);
    if (parts.length === 1) return json(res, sessionsPayload(options.source.label, await options.source.list()));
    const id = parts[1]!;
    const rest = parts.slice(2);
    if (rest[0] === "live" && rest.length === 1) {
      const from = Number(url.searchParams.get("from") ?? "0");
      if (!Number.isSafeInteger(from) || from < 0)
        throw new InspectError("bad-request", `bad from=${url.searchParams.get("from")}`);
      await viewsOf(id); // 404 before the stream starts
      return liveStream(req, res, streams, options.source, id, from, viewsOf);
    }
    const v = await viewsOf(id);
    if (rest.length === 0) return json(res, v.session());
    switch (rest[0]) {
      case "events": {
        const seq = Number(rest[1]);
        const event = Number.isSafeInteger(seq) ? v.loaded.session.events[seq] : undefined;
        if (event === undefined || rest.length !== 2)
          throw new InspectError("not-found", `no event ${rest[1]} in ${id}`);
        return json(res, event);
      }
      case "requests": {
        if (rest.length === 1)
          return url.searchParams.get("format") === "cli"
            ? send(res, 200, "application/json; charset=utf-8", v.requestsText)
            : json(res, v.requestList);
        const request = v.request(Number(rest[1]));
        if (request === undefined)
          throw new InspectError("not-found", `no request ${rest[1]}: this session has ${v.requests.length}`);
        if (rest.length === 2) return json(res, request);
        const wire = rest[3] as Wire;
        if (rest[2] === "wire" && rest.length === 4 && WIRES.includes(wire))
          return send(res, 200, "application/json; charset=utf-8", request.wire[wire]);
        break;
      }
      case "headers":
        if (rest.length === 1) return json(res, v.headers);
        break;
      case "cache":
        // The body is `keelson cache --json`'s output, byte for byte (less the final newline).
        if (rest.length === 1)
          return send(res, 200, "application/json; charset=utf-8", JSON.stringify(v.cache, null, 2));
        break;
      case "verify":
        if (rest.length === 1) return json(res, v.verify);
        break;
    }
    throw new InspectError("not-found", `no endpoint ${path}`);
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (res.headersSent) {
        res.end();
        return;
      }
      const [status, code] = statusOf(error);
      json(res, { error: code, message: error instanceof Error ? error.message : String(error) }, status);
    });
  });
  await new Promise<void>((done, fail) => {
    server.once("error", fail);
    server.listen(options.port ?? 0, "127.0.0.1", () => {
      server.off("error", fail);
      done();
    });
  });
  port = (server.address() as AddressInfo).port;
  const origin = `http://127.0.0.1:${port}`;
  const hash = options.sessionId === undefined ? "" : `#/session/${encodeURIComponent(options.sessionId)}`;
  return {
    url: `${origin}/?token=${token}${hash}`,
    origin,
    port,
    token,
    close: async () => {
      for (const res of streams) res.end();
      await new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections();
      });
    },
  };
}

function authorized(req: IncomingMessage, token: string, queryToken: string | null): boolean {
  const offered: string[] = [];
  if (queryToken !== null) offered.push(queryToken);
  const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? "");
  if (bearer !== null) offered.push(bearer[1]!);
  for (const part of (req.headers.cookie ?? "").split(";")) {
    const [name, ...value] = part.trim().split("=");
    if (name === COOKIE) offered.push(value.join("="));
  }
  const want = Buffer.from(token);
  return offered.some((t) => {
    const got = Buffer.from(t);
    return got.length === want.length && timingSafeEqual(got, want);
  });
}

function statusOf(error: unknown): [number, string] {
  if (error instanceof InspectError)
    return [error.code === "not-found" ? 404 : error.code === "no-ui" ? 500 : 400, error.code];
  if (error instanceof StoreError)
    return [error.code === "not-found" ? 404 : error.code === "invalid-id" ? 400 : 422, error.code];
  return [500, "internal"];
}

function send(res: ServerResponse, status: number, type: string, body: string | Buffer): void {
  res.writeHead(status, {
    "Content-Type": type,
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Content-Security-Policy": "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:",
  });
  res.end(body);
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
