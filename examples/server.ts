// Many sessions in one process over HTTP (node:http, no framework), on an agent host:
//   POST /sessions/:id/turns {"prompt": "..."} — the prompt runs as the session's next turn (one
//     at a time per session, in order; `?ifBusy=reject` answers 409 instead), streamed as SSE;
//   GET /sessions/:id/events?from=SEQ (or Last-Event-ID) — the committed events after SEQ, then
//     the turn in flight live: how a client that lost its connection catches up.
// Run: `node --import tsx examples/server.ts` (the built-in emulator: no key, no network), then
//   curl -N -d '{"prompt":"hi"}' localhost:8787/sessions/demo/turns
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { fileURLToPath } from "node:url";
import {
  type AgentHost,
  AnthropicProvider,
  createAgentHost,
  isKeelsonError,
  JsonlSessionStore,
  startEmulator,
  type TurnEvent,
} from "keelson";

// SSE by hand (src/serve's toSSE will do this): a committed event's `id:` is its seq.
const sse = (event: TurnEvent): string =>
  `${"seq" in event ? `id: ${event.seq}\n` : ""}event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
const STATUS: Record<string, number> = { "not-found": 404, busy: 409, "invalid-position": 416, closed: 503 };

async function readPrompt(req: IncomingMessage): Promise<string> {
  let body = "";
  for await (const chunk of req) body += chunk;
  return JSON.parse(body).prompt;
}

/** Headers go out with the first event, so a session that fails to open still gets an error status. */
async function pipe(events: AsyncIterable<TurnEvent>, res: ServerResponse): Promise<void> {
  const open = (): void => void (res.headersSent || res.writeHead(200, { "content-type": "text/event-stream" }));
  for await (const event of events) {
    open();
    res.write(sse(event)); // the turn goes on if the client left (pass `signal` to cancel it instead)
  }
  open();
  res.end();
}

/** Serves `host` on `port` (0: any free port); resolves once it listens. */
export function serve(host: AgentHost, port = 8787): Promise<Server> {
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    const [, id = "", route] = /^\/sessions\/([^/]+)\/(turns|events)$/.exec(url.pathname) ?? [];
    try {
      if (route === "turns" && req.method === "POST") {
        const ifBusy = url.searchParams.get("ifBusy") === "reject" ? "reject" : "queue";
        await pipe(host.stream(decodeURIComponent(id), await readPrompt(req), { ifBusy }), res);
      } else if (route === "events" && req.method === "GET") {
        const from = Number(req.headers["last-event-id"] ?? url.searchParams.get("from") ?? -1);
        await pipe(await host.follow(decodeURIComponent(id), { from }), res);
      } else res.writeHead(404).end();
    } catch (error) {
      if (res.headersSent) return void res.end(); // failed mid-stream: the client resumes from its last id
      const code = isKeelsonError(error) ? error.code : error instanceof SyntaxError ? "invalid-body" : "internal";
      const status = STATUS[code] ?? (/^(invalid|unknown)-/.test(code) ? 400 : 500);
      res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify({ error: code }));
    }
  });
  return new Promise((resolve) => server.listen(port, "127.0.0.1", () => resolve(server)));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const emulator = await startEmulator(); // swap for `new AnthropicProvider()` with $ANTHROPIC_API_KEY set
  const provider = new AnthropicProvider({ apiKey: "emulator", baseURL: emulator.anthropicBaseURL });
  const store = new JsonlSessionStore({ root: process.env.SERVER_SESSIONS ?? "./.keelson-server" });
  const profile = { provider, model: "emulator:emulator-anthropic", system: "You are a concise assistant." };
  const host = createAgentHost({ store, profile, maxOpen: 500 });
  const server = await serve(host, Number(process.env.PORT ?? 8787));
  console.log(`listening on http://127.0.0.1:${(server.address() as { port: number }).port}`);
  process.once("SIGINT", async () => {
    server.close(); // no new connections; open streams end with their turns
    await host.close(); // running and queued turns finish; every session flushed and released
    await Promise.all([store.close(), emulator.close()]);
  });
}
