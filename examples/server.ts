// Many sessions in one process over HTTP (node:http, no framework), on an agent host:
//   POST /sessions/:id/turns {"prompt": "..."} — the session's next turn (in order; ?ifBusy=reject: 409), as SSE;
//   POST /sessions/:id/chat — `useChat`'s (@ai-sdk/react) prompts and answers in, the UI message stream out;
//   GET /sessions/:id/events?from=SEQ (or Last-Event-ID) — committed events after SEQ, then the live turn.
// Run: `node --import tsx examples/server.ts` (the built-in emulator: no key, no network), then
//   curl -N -H 'content-type: application/json' -d '{"prompt":"hi"}' localhost:8787/sessions/demo/turns
import { createServer, type Server } from "node:http";
import { fileURLToPath } from "node:url";
import {
  type AgentHost,
  AnthropicProvider,
  createAgentHost,
  createCompaction,
  isKeelsonError,
  JsonlSessionStore,
  startEmulator,
} from "keelson";
import { followFrom, parseChatRequest, pipeSSE, pipeUIMessageStream, readJsonBody, ServeError } from "keelson/serve";

const STATUS: Record<string, number> = {
  "not-found": 404,
  busy: 409,
  locked: 409, // another process (or host) has the session open: a conflict, as busy is
  "already-open": 409,
  "awaiting-approval": 409,
  "position-beyond-log": 416,
  closed: 503,
};

/** Serves `host` on `port` (0: any free port); resolves once it listens. */
export function serve(host: AgentHost, port = 8787): Promise<Server> {
  const server = createServer({ requestTimeout: 30_000 }, async (req, res) => {
    try {
      const url = new URL(req.url ?? "/", "http://localhost");
      const [, id = "", route] = /^\/sessions\/([^/]+)\/(turns|chat|events)$/.exec(url.pathname) ?? [];
      const sessionId = decodeURIComponent(id); // a malformed escape throws URIError: 400 below
      if (route === "turns" && req.method === "POST") {
        const { prompt } = await readJsonBody(req); // 415 unless JSON (no cross-site form posts), 413 over 8 MiB; 30 s to send it
        const ifBusy = url.searchParams.get("ifBusy") === "reject" ? "reject" : "queue";
        // A client that leaves does not stop the turn: it runs to its end and is stored.
        await pipeSSE(host.stream(sessionId, prompt as string, { ifBusy }), res);
      } else if (route === "chat" && req.method === "POST") {
        const chat = parseChatRequest(await readJsonBody(req), { pending: await host.pending(sessionId) });
        const turn =
          chat.kind === "prompt" ? host.stream(sessionId, chat.content) : host.streamAnswers(sessionId, chat);
        await pipeUIMessageStream(turn, res, { cancelOnDisconnect: true });
      } else if (route === "events" && req.method === "GET") {
        const from = followFrom(req) ?? -1; // Last-Event-ID, else ?from=
        await pipeSSE(await host.follow(sessionId, { from }), res);
      } else res.writeHead(404).end();
    } catch (error) {
      if (res.headersSent) return void res.end(); // failed mid-stream: the client resumes from its last id
      const code = isKeelsonError(error) ? error.code : error instanceof URIError ? "invalid-request" : "internal";
      const fallback = /-too-large$/.test(code) ? 413 : /^(invalid|unknown)-/.test(code) ? 400 : 500; // prompt-too-large: 413
      const status = error instanceof ServeError ? error.status : (STATUS[code] ?? fallback);
      const unread = req.complete ? {} : { connection: "close" }; // the body's rest would be read as the next request
      res.writeHead(status, { "content-type": "application/json", ...unread }).end(JSON.stringify({ error: code }));
    }
  });
  return new Promise((resolve) => server.listen(port, "127.0.0.1", () => resolve(server)));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const emulator = await startEmulator({ keepRequests: 0 }); // swap for `new AnthropicProvider()` with $ANTHROPIC_API_KEY set
  const provider = new AnthropicProvider({ apiKey: "emulator", baseURL: emulator.anthropicBaseURL });
  const store = new JsonlSessionStore({ root: process.env.SERVER_SESSIONS ?? "./.keelson-server" });
  const profile = { provider, model: "emulator:emulator-anthropic", options: { compaction: createCompaction() } };
  const host = createAgentHost({ store, profile, maxOpen: 500 }); // compaction: a long chat is summarized, not stalled
  const server = await serve(host, Number(process.env.PORT ?? 8787));
  console.log(`listening on http://127.0.0.1:${(server.address() as { port: number }).port}`);
  const stop = async (): Promise<void> => {
    server.keepAliveTimeout = 1; // a kept-alive socket closes as soon as its stream is over
    server.close(); // no new connections; open streams end with their turns
    await host.close(); // running and queued turns finish; every session flushed and released
    server.closeIdleConnections(); // and the sockets already idle
    await Promise.all([store.close(), emulator.close()]);
  };
  process.once("SIGINT", stop).once("SIGTERM", stop); // Ctrl-C, or a container being stopped
}
