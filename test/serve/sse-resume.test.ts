// Resumable by log position (issue #22 §3), over a real node:http server on 127.0.0.1: a client
// that drops mid-turn and reconnects with `Last-Event-ID` (or `?from=`) gets the committed
// events after it from the log, then the turn live; the dropped connection did not stop the
// turn. A position beyond the log is 416, a malformed one 400, and nothing is written.
import { afterEach, describe, expect, test } from "vitest";
import { ScriptedProvider } from "../../src/llm/core.js";
import { type Agent, createAgent, type TurnEvent } from "../../src/loop/index.js";
import { followFrom, openTurnFrom, pipeSSE, readSSE, ServeError } from "../../src/serve/index.js";
import { closeServers, listen, waitingTool } from "./support.js";

afterEach(closeServers);

/** GET /events: the agent's log after the client's position, then live (pipeSSE over agent.follow). */
async function serve(agent: Agent): Promise<string> {
  const origin = await listen((req, res) => {
    try {
      const from = followFrom(req, { logLength: agent.session.length });
      void pipeSSE(agent.follow(from === undefined ? {} : { from }), res);
    } catch (error) {
      const status = error instanceof ServeError ? error.status : 500;
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: error instanceof ServeError ? error.code : "internal" }));
    }
  });
  return `${origin}/events`;
}

/** A turn whose tool waits for the test: the client can drop and reconnect while it runs. */
function waitingAgent() {
  const { tool, gate, running } = waitingTool();
  const provider = new ScriptedProvider([{ toolCalls: [{ name: "wait" }] }, { text: "after the wait" }]);
  const agent = createAgent({ provider, model: "m", tools: [tool] });
  return { agent, gate, running };
}

/** An agent whose turn has ended, served. */
async function servedAfterTurn(): Promise<{ agent: Agent; url: string }> {
  const { agent, gate } = waitingAgent();
  gate.resolve();
  await agent.send("go");
  return { agent, url: await serve(agent) };
}

const seqOf = (event: TurnEvent): number | undefined => ("seq" in event ? event.seq : undefined);

describe("reconnecting with Last-Event-ID", () => {
  test("a client that drops mid-turn resumes after its last seq: every committed event once, in order", async () => {
    const { agent, gate, running } = waitingAgent();
    const url = await serve(agent);
    const outcome = agent.send("go");
    await running.promise;
    // First connection: read up to the logged tool call, then drop.
    const first: TurnEvent[] = [];
    const drop = new AbortController();
    for await (const event of readSSE(await fetch(url, { signal: drop.signal }))) {
      first.push(event);
      if (event.type === "tool-call-ready") break;
    }
    drop.abort();
    const lastSeq = first
      .map(seqOf)
      .filter((s) => s !== undefined)
      .at(-1)!;
    // Second connection: what an EventSource sends on its own.
    const resumed = readSSE(await fetch(url, { headers: { "Last-Event-ID": String(lastSeq) } }));
    gate.resolve();
    const second: TurnEvent[] = [];
    for await (const event of resumed) second.push(event);
    expect((await outcome).reason).toEqual({ kind: "completed" }); // the drop cancelled nothing
    const seqs = [...first, ...second].map(seqOf).filter((s) => s !== undefined);
    const logged = agent.session.events.filter((e) => !e.type.startsWith("request/header")).map((e) => e.seq);
    expect(seqs).toEqual(logged);
    expect(second[0] && seqOf(second[0])).toBe(lastSeq + 1);
    expect(second.some((e) => e.type === "text-delta")).toBe(true); // step 2 streamed live
    expect(second.at(-1)?.type).toBe("turn-end");
    await agent.dispose();
  });

  test("?from= works the same when there is no Last-Event-ID", async () => {
    const { agent, url } = await servedAfterTurn();
    const events: TurnEvent[] = [];
    for await (const event of readSSE(await fetch(`${url}?from=3`))) events.push(event);
    expect(events[0] && seqOf(events[0])).toBe(4);
    expect(events.at(-1)?.type).toBe("turn-end");
    await agent.dispose();
  });

  test("a position beyond the log is 416, a malformed one 400, and the log is untouched", async () => {
    const { agent, url } = await servedAfterTurn();
    const length = agent.session.length;
    const beyond = await fetch(url, { headers: { "Last-Event-ID": String(length) } });
    expect(beyond.status).toBe(416);
    expect(await beyond.json()).toEqual({ error: "position-beyond-log" });
    for (const bad of ["abc", "1.5", "-2", " 3"]) {
      const response = await fetch(`${url}?from=${encodeURIComponent(bad)}`);
      expect(response.status, bad).toBe(400);
      await response.body?.cancel();
    }
    const huge = await fetch(`${url}?from=99999999999999999999`); // well-formed, past any log
    expect(huge.status).toBe(416);
    await huge.body?.cancel();
    expect(agent.session.length).toBe(length);
    await agent.dispose();
  });
});

describe("followFrom and openTurnFrom", () => {
  const request = (headers: Record<string, string>, url = "/events") => ({ headers: new Headers(headers), url });

  test("Last-Event-ID wins over ?from=; neither is undefined; -1 is the start", () => {
    expect(followFrom(request({ "last-event-id": "7" }, "/e?from=2"))).toBe(7);
    expect(followFrom(request({}, "/e?from=2"))).toBe(2);
    expect(followFrom(request({}))).toBeUndefined();
    expect(followFrom(request({}, "/e?from=-1"))).toBe(-1);
    expect(followFrom({ headers: { "last-event-id": " 3 " } })).toBe(3);
    expect(followFrom(request({ "last-event-id": "" }, "/e?from=4"))).toBe(4); // empty names nothing
  });

  test("typed errors name where the position came from", () => {
    expect(() => followFrom(request({ "last-event-id": "x" }))).toThrow(/Last-Event-ID "x"/);
    expect(() => followFrom(request({}, "/e?from=5"), { logLength: 5 })).toThrow(
      expect.objectContaining({ code: "position-beyond-log", status: 416 }),
    );
    // Well-formed, past any log: beyond it (416), however many digits — not malformed (400).
    const huge = "9".repeat(30);
    expect(() => followFrom(request({}, `/e?from=${huge}`), { logLength: 5 })).toThrow(
      expect.objectContaining({
        code: "position-beyond-log",
        message: `?from= ${"9".repeat(20)}… is beyond the log (its last seq is 4)`,
      }),
    );
    expect(followFrom(request({ "last-event-id": huge }))).toBe(Number.MAX_SAFE_INTEGER);
    // What is no seq: a blank in a query value (a header's are HTTP's), a sign, a fraction, below -1.
    // Found from outside: an empty ?from= (a client's `?from=${lastId}` without an id) replayed
    // everything; several Last-Event-ID values in a header map were read as the first.
    for (const url of ["/e?from=", "/e?from=%20", "/e?x=1&from="])
      expect(() => followFrom(request({}, url)), url).toThrow(
        expect.objectContaining({ code: "invalid-position", message: expect.stringContaining("?from= is empty") }),
      );
    expect(() => followFrom({ headers: { "last-event-id": ["3", "4"] as unknown as string } })).toThrow(
      expect.objectContaining({ code: "invalid-position", message: expect.stringContaining('"3, 4"') }),
    );
    // Two `from` parameters, as two header values: refused (found from outside: the first was read).
    expect(() => followFrom(request({}, "/e?from=3&from=4"))).toThrow(
      expect.objectContaining({ code: "invalid-position", message: expect.stringContaining("2 times") }),
    );
    expect(followFrom(request({ "last-event-id": "2" }, "/e?from=3&from=4"))).toBe(2); // the header first
    for (const from of ["%203", "3%20", "+3", "3.0", "1e3", "-2", "0x10", "-"])
      expect(() => followFrom(request({}, `/e?from=${from}`)), from).toThrow(
        expect.objectContaining({ code: "invalid-position", status: 400 }),
      );
  });

  test("openTurnFrom: the seq before the open turn's turn/start, undefined when idle", async () => {
    const { agent, gate, running } = waitingAgent();
    expect(openTurnFrom(agent.session)).toBeUndefined();
    const outcome = agent.send("go");
    await running.promise;
    const start = agent.session.events.findLast((e) => e.type === "turn/start")!.seq;
    expect(openTurnFrom(agent.session)).toBe(start - 1);
    gate.resolve();
    await outcome;
    expect(openTurnFrom(agent.session)).toBeUndefined();
    await agent.dispose();
  });
});
