// Found from outside: committed events are streamed as they are appended, before the step's group
// commit makes them durable, and the SSE stream gave each its seq as the id at once — so a server
// killed before the commit had handed out ids that its restart logs again as other events, and a
// client resuming from one silently missed them. Now an id names only what is on disk: a
// committed event streamed before the flush goes without its id, and an id-only frame follows once
// the log is durable through it. Checked against a JSONL store whose flush the test holds: at every
// event read, the client's `lastEventId` is a seq another store instance reads from disk.
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { z } from "zod";
import { ScriptedProvider } from "../../src/llm/index.js";
import { createAgentHost } from "../../src/host/index.js";
import { createAgent } from "../../src/loop/index.js";
import { readSSE, toSSE } from "../../src/serve/index.js";
import type { Session } from "../../src/session/index.js";
import { JsonlSessionStore, type SessionPersistence, type SessionStore } from "../../src/store/index.js";
import { defineTool } from "../../src/tools/index.js";
import { fixedClock } from "../support/builders.js";
import { deferred } from "../support/deferred.js";

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "keelson-durable-ids-"));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** `store`, except that each flush first waits for `hold` (while set). */
function heldStore(store: JsonlSessionStore): { store: SessionStore; gate: { hold?: Promise<void> | undefined } } {
  const gate: { hold?: Promise<void> | undefined } = {};
  const attach = (session: Session): SessionPersistence => {
    const inner = store.attach(session);
    return {
      flush: async () => {
        await gate.hold;
        await inner.flush();
      },
      dispose: () => inner.dispose(),
    };
  };
  const proxy = new Proxy(store, {
    get(target, key) {
      if (key === "attach") return attach;
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { store: proxy, gate };
}

/** How many events of session `id` are in its log file (read directly: a load would flush the writer's buffer). */
function onDisk(id: string): number {
  const file = new JsonlSessionStore({ root }).fileOf(id);
  if (!existsSync(file)) return 0;
  const lines = readFileSync(file, "utf8").split("\n").slice(0, -1); // complete lines only
  return lines.filter((line) => typeof (JSON.parse(line) as { seq?: unknown }).seq === "number").length;
}

const write = defineTool({
  name: "write",
  description: "Writes a note.",
  input: z.object({ text: z.string() }),
  execute: ({ text }) => `wrote ${text}`, // not read-only: its call is flushed before it runs
});

describe("SSE ids name durable events only", () => {
  test("a held flush: events stream without ids, then id-only frames catch up; every id read is on disk", async () => {
    const { store, gate } = heldStore(new JsonlSessionStore({ root }));
    const provider = new ScriptedProvider([{ toolCalls: [{ name: "write", arguments: { text: "a" } }] }], {
      fallback: { text: "done" },
    });
    const agent = createAgent({
      provider,
      model: "scripted:m",
      system: "s",
      tools: [write],
      store,
      clock: fixedClock(),
    });
    const id = agent.session.id;
    await agent.flush(); // the session exists on disk
    const release = deferred<void>();
    const reader = readSSE(toSSE(agent.stream("go")));
    const seen: { type: string; seq?: number; lastEventId: string | undefined }[] = [];
    let held = false;
    for await (const event of reader) {
      const lastEventId = reader.lastEventId;
      seen.push({ type: event.type, ...("seq" in event ? { seq: event.seq } : {}), lastEventId });
      if (event.type === "turn-start") gate.hold = release.promise; // the step's flushes wait
      if (event.type === "tool-call-ready" && !held) {
        held = true;
        // The call's pre-tool flush is held: the answer and the call are streamed, not on disk.
        expect(Number(lastEventId ?? -1)).toBeLessThan(onDisk(id));
        expect(event.seq).toBeGreaterThanOrEqual(onDisk(id));
        gate.hold = undefined;
        release.resolve();
      }
      expect(Number(lastEventId ?? -1)).toBeLessThan(onDisk(id));
    }
    expect(held).toBe(true);
    const outcome = await agent.dispose().then(() => undefined);
    expect(outcome).toBeUndefined();
    // The turn's events went without ids while unsaved, and the stream ended positioned at its end.
    const turnEnd = seen.find((e) => e.type === "turn-end")!;
    expect(reader.lastEventId).toBe(String(turnEnd.seq));
    const ready = seen.find((e) => e.type === "tool-call-ready")!;
    expect(Number(ready.lastEventId ?? -1)).toBeLessThan(ready.seq!);
  });

  test("an agent without a store gives every committed event its id at once", async () => {
    const provider = new ScriptedProvider([], { fallback: { text: "done" } });
    const agent = createAgent({ provider, model: "scripted:m", system: "s", clock: fixedClock() });
    const reader = readSSE(toSSE(agent.stream("go")));
    for await (const event of reader) if ("seq" in event) expect(reader.lastEventId).toBe(String(event.seq));
    await agent.dispose();
  });

  test("a follow of a stored agent gives ids only through what is durable, and catches up", async () => {
    const { store, gate } = heldStore(new JsonlSessionStore({ root }));
    const provider = new ScriptedProvider([], { fallback: { text: "done" } });
    const agent = createAgent({ provider, model: "scripted:m", system: "s", store, clock: fixedClock() });
    const id = agent.session.id;
    await agent.send("first");
    const release = deferred<void>();
    gate.hold = release.promise;
    const turn = agent.send("second");
    const reader = readSSE(toSSE(agent.follow({ from: -1 })));
    let sawUnsaved = false;
    for await (const event of reader) {
      const lastEventId = reader.lastEventId;
      expect(Number(lastEventId ?? -1)).toBeLessThan(onDisk(id));
      if ("seq" in event && lastEventId !== String(event.seq)) sawUnsaved = true;
      if (event.type === "step-end" && gate.hold !== undefined) {
        gate.hold = undefined;
        release.resolve();
      }
    }
    expect(sawUnsaved).toBe(true);
    await turn;
    await agent.dispose();
  });

  test("the host's stream and follow say how far the log is durable, as the agent's do", async () => {
    const { store, gate } = heldStore(new JsonlSessionStore({ root }));
    const provider = new ScriptedProvider([], { fallback: { text: "done" } });
    const host = createAgentHost({ store, profile: { provider, model: "scripted:m" } });
    await host.send("s1", "first");
    const release = deferred<void>();
    gate.hold = release.promise;
    const stream = host.stream("s1", "second");
    const follow = await host.follow("s1", { from: -1 });
    const followed = readSSE(toSSE(follow));
    const reader = readSSE(toSSE(stream));
    let unsaved = 0;
    for await (const event of reader) {
      expect(Number(reader.lastEventId ?? -1)).toBeLessThan(onDisk("s1"));
      if ("seq" in event && reader.lastEventId !== String(event.seq)) unsaved++;
      if (event.type === "step-end" && gate.hold !== undefined) {
        gate.hold = undefined;
        release.resolve();
      }
    }
    expect(unsaved).toBeGreaterThan(0);
    for await (const _ of followed) expect(Number(followed.lastEventId ?? -1)).toBeLessThan(onDisk("s1"));
    expect(followed.lastEventId).toBe(reader.lastEventId);
    await host.close();
  });
});
