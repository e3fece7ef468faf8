// The useChat page's server: one agent behind node:http, the page bundled by esbuild at start.
// GET / and /app.js serve the page; GET /api/messages is the stored history
// (`uiMessagesFromLog`); POST /api/chat runs the last user message as a turn — or the page's
// answers to pending approvals and questions as the continuation of the paused turn — and
// streams it as the UI message stream, cancelling the turn when the client goes away (the stop
// button) unless started with `cancelOnDisconnect: false`; GET /api/chat/<id>/stream is useChat's
// reconnect: the open turn's message replayed from its start (`openTurnFrom`), or 204 when idle.
import { readFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { build } from "esbuild";
import type { Agent } from "../../src/loop/index.js";
import {
  openTurnFrom,
  parseChatRequest,
  pipeUIMessageStream,
  readJsonBody,
  ServeError,
  uiMessagesFromLog,
} from "../../src/serve/index.js";

const PAGE = join(import.meta.dirname, "use-chat-page");

export interface ChatServer {
  readonly origin: string;
  close(): Promise<void>;
}

/** Bundles the page (React and @ai-sdk/react included) into one script. */
async function bundle(): Promise<string> {
  const result = await build({
    entryPoints: [join(PAGE, "main.tsx")],
    bundle: true,
    write: false,
    format: "esm",
    platform: "browser",
    target: "es2022",
    jsx: "automatic",
    define: { "process.env.NODE_ENV": '"production"' },
    logLevel: "warning",
  });
  return result.outputFiles[0]!.text;
}

export async function startChatServer(
  agent: Agent,
  options: { cancelOnDisconnect?: boolean } = {},
): Promise<ChatServer> {
  const [script, html] = await Promise.all([bundle(), readFile(join(PAGE, "index.html"), "utf8")]);
  const cancelOnDisconnect = options.cancelOnDisconnect ?? true;
  const server: Server = createServer((req, res) => {
    route(agent, req, res, { script, html, cancelOnDisconnect }).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(error instanceof ServeError ? error.status : 500);
      res.end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

async function route(
  agent: Agent,
  req: IncomingMessage,
  res: ServerResponse,
  page: { readonly script: string; readonly html: string; readonly cancelOnDisconnect: boolean },
): Promise<void> {
  const path = new URL(req.url ?? "/", "http://localhost").pathname;
  if (req.method === "GET" && path === "/") {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(page.html);
  } else if (req.method === "GET" && path === "/app.js") {
    res.writeHead(200, { "content-type": "text/javascript; charset=utf-8" }).end(page.script);
  } else if (req.method === "GET" && path === "/api/messages") {
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(uiMessagesFromLog(agent.session)));
  } else if (req.method === "POST" && path === "/api/chat") {
    // useChat's transport sends application/json: the door a real page passes.
    const chat = parseChatRequest(await readJsonBody(req), { pending: agent, by: "page-user" });
    const turn = chat.kind === "prompt" ? agent.stream(chat.content) : agent.streamAnswers(chat);
    await pipeUIMessageStream(turn, res, { cancelOnDisconnect: page.cancelOnDisconnect });
  } else if (req.method === "GET" && path === "/api/chat/keelson-chat/stream") {
    const from = openTurnFrom(agent.session);
    if (from === undefined) res.writeHead(204).end();
    else await pipeUIMessageStream(agent.follow({ from }), res);
  } else {
    res.writeHead(404).end();
  }
}
