// pipeSSE / pipeUIMessageStream over a real node:http server: a turn that cannot start (its
// session is locked by another writer) rejects before any header is written, so the server answers
// it with a status (409), not a 200 stream that says it failed; a failure after the first event
// still ends the open stream in-band; a follow (which cannot fail to start) gets its headers at
// once, before any event.
import { mkdtemp, rm } from "node:fs/promises";
import type { ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { isKeelsonError } from "../../src/errors/index.js";
import { ScriptedProvider } from "../../src/llm/core.js";
import { type Agent, createAgent, type TurnEvent } from "../../src/loop/index.js";
import { pipeSSE, pipeUIMessageStream, readSSE } from "../../src/serve/index.js";
import { JsonlSessionStore } from "../../src/store/index.js";
import { closeServers, listen, waitingTool } from "./support.js";

let root: string;
let stores: JsonlSessionStore[];
let agents: Agent[];
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "keelson-http-open-"));
  stores = [];
  agents = [];
});
afterEach(async () => {
  await closeServers();
  for (const agent of agents) await agent.dispose();
  for (const store of stores) await store.close();
  await rm(root, { recursive: true, force: true });
});

const storeOn = (): JsonlSessionStore => {
  const store = new JsonlSessionStore({ root });
  stores.push(store);
  return store;
};
const provider = () => new ScriptedProvider([], { fallback: { text: "ok" } });

const agentOn = (store: JsonlSessionStore): Agent => {
  const agent = createAgent({ provider: provider(), model: "m", store, sessionId: "taken" });
  agents.push(agent);
  return agent;
};

/** Session `taken`, held open by a first writer; a new agent over it on a second store (its create is refused `locked`). */
async function lockedAgent(): Promise<() => Agent> {
  await agentOn(storeOn()).send("first");
  const second = storeOn();
  return () => agentOn(second);
}

/** A server whose one route pipes `pipe(res)`; a rejection becomes a status (409 for `locked`), as examples/server.ts does. */
const serving = (pipe: (res: ServerResponse) => Promise<void>) =>
  listen(async (_req, res) => {
    try {
      await pipe(res);
    } catch (error) {
      if (res.headersSent) return void res.end();
      const code = isKeelsonError(error) ? error.code : "internal";
      res.writeHead(code === "locked" ? 409 : 500, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: code }));
    }
  });

describe("a turn that cannot start is a status, not a 200 stream", () => {
  test("pipeSSE: the session is locked → the promise rejects before any header; the server answers 409", async () => {
    const refused = await lockedAgent();
    const origin = await serving((res) => pipeSSE(refused().stream("second"), res));
    const response = await fetch(origin);
    expect([response.status, response.headers.get("content-type"), await response.json()]).toEqual([
      409,
      "application/json",
      { error: "locked" },
    ]);
  });

  test("pipeUIMessageStream: the same", async () => {
    const refused = await lockedAgent();
    const origin = await serving((res) => pipeUIMessageStream(refused().stream("second"), res));
    const response = await fetch(origin);
    expect([response.status, await response.json()]).toEqual([409, { error: "locked" }]);
  });

  test("a failure after the first event ends the 200 stream in-band (stream-error)", async () => {
    async function* failsLater(): AsyncGenerator<TurnEvent> {
      yield { type: "turn-start", seq: 0, turn: 1, trigger: "send" };
      throw Object.assign(new Error("the store went away"), { code: "unavailable" });
    }
    const stream = Object.assign(failsLater(), { outcome: new Promise(() => {}), cancel: () => {} });
    const origin = await serving((res) => pipeSSE(stream, res));
    const response = await fetch(origin);
    expect(response.status).toBe(200);
    const read: TurnEvent[] = [];
    await expect(
      (async () => {
        for await (const event of readSSE(response)) read.push(event);
      })(),
    ).rejects.toMatchObject({
      code: "stream-error",
      message: expect.stringMatching(/unavailable: the store went away/),
    });
    expect(read.map((e) => e.type)).toEqual(["turn-start"]);
  });
});

test("a follow gets its headers at once, before its first event (a caught-up client waits for the turn live)", async () => {
  const { tool, gate, running } = waitingTool();
  const agent = createAgent({
    provider: new ScriptedProvider([{ toolCalls: [{ name: "wait" }] }, { text: "done" }]),
    model: "m",
    tools: [tool],
  });
  const outcome = agent.send("go");
  await running.promise; // the tool runs: nothing more is logged until the gate opens
  const origin = await serving((res) => pipeSSE(agent.follow({ from: agent.session.length - 1 }), res));
  const response = await fetch(origin); // resolves with the headers, the gate still closed
  expect(response.status).toBe(200);
  gate.resolve();
  const events: TurnEvent[] = [];
  for await (const event of readSSE(response)) events.push(event);
  expect(events.at(-1)?.type).toBe("turn-end");
  await outcome;
  await agent.dispose();
});
