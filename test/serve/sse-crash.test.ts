// A server killed mid-step, end to end (found from outside: the ids it had handed out were logged
// again as other events after its restart). A real process — examples/server.ts's `serve` over a
// JSONL store — streams a turn whose second step hangs after its first delta; the client reads
// until that delta, keeps `lastEventId`, and the process is SIGKILLed. The store, opened again (a
// writable load repairs the open turn), holds every event the client's position covers exactly as
// the client saw it, and a resume from that position gets the repaired rest — nothing the client
// missed, nothing it saw in the lost step passed off as logged. Loopback only; the process is
// stopped by its pid.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterEach, expect, test } from "vitest";
import { createAgentHost } from "../../src/host/index.js";
import { ScriptedProvider } from "../../src/llm/index.js";
import { committedTurnEvent, type TurnEvent } from "../../src/loop/index.js";
import { readSSE, toSSE } from "../../src/serve/index.js";
import { JsonlSessionStore } from "../../src/store/index.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

test("SIGKILL mid-step: the client's last id is in the repaired log as it saw it; resuming from it misses nothing", async () => {
  const root = await mkdtemp(join(tmpdir(), "keelson-sse-crash-"));
  cleanups.push(() => rm(root, { recursive: true, force: true }));
  const child = spawn(process.execPath, ["--import", "tsx", "test/serve/fixtures/crash-server.ts", root], {
    cwd: join(import.meta.dirname, "../.."),
    env: { PATH: process.env.PATH ?? "", HOME: root, KEELSON_HOME: root },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  cleanups.push(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await exited;
  });
  const [line] = (await once(createInterface({ input: child.stdout! }), "line")) as [string];
  const url = /^listening (http:\/\/\S+)$/.exec(line)?.[1];
  expect(url, line).toBeDefined();

  const reader = readSSE(
    await fetch(`${url}/sessions/c1/turns`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"prompt":"go"}',
    }),
  );
  const seen: TurnEvent[] = [];
  for await (const event of reader) {
    seen.push(event);
    if (event.type === "text-delta") break; // the second step's delta: that step is not saved
  }
  const lastEventId = Number(reader.lastEventId);
  child.kill("SIGKILL");
  await exited;

  const committed = seen.filter((e) => "seq" in e) as (TurnEvent & { seq: number })[];
  const stepStarts = committed.filter((e) => e.type === "step-start");
  expect(stepStarts).toHaveLength(2); // the client saw the second step start…
  expect(lastEventId).toBeLessThan(stepStarts[1]!.seq); // …and was given no position inside it
  expect(lastEventId).toBe(committed.find((e) => e.type === "step-end")!.seq); // the first step's end: durable

  // The restart: a writable load repairs the open turn.
  const store = new JsonlSessionStore({ root });
  const host = createAgentHost({
    store,
    profile: { provider: new ScriptedProvider([], { fallback: { text: "ok" } }), model: "scripted:m" },
  });
  cleanups.push(async () => {
    await host.close();
    await store.close();
  });
  await host.send("c1", "after the crash"); // opens (and repairs) the session, and logs on past the lost seqs
  const log = await host.log("c1");
  // Every event the client's position covers is in the log as the client saw it.
  for (const event of committed.filter((e) => e.seq <= lastEventId))
    expect(committedTurnEvent(log[event.seq]!)).toEqual(event);
  // The lost step's seqs now hold other events: a position there would have skipped them.
  expect(committedTurnEvent(log[stepStarts[1]!.seq]!)).not.toEqual(stepStarts[1]);
  // Resuming from the position gets everything after it, the repair included.
  const resumed: TurnEvent[] = [];
  for await (const event of readSSE(toSSE(await host.follow("c1", { from: lastEventId })))) resumed.push(event);
  const resumedSeqs = resumed.flatMap((e) => ("seq" in e ? [e.seq] : []));
  expect(resumedSeqs[0]).toBe(lastEventId + 1);
  expect(resumed.some((e) => e.type === "turn-end" && e.reason.kind !== "completed")).toBe(true); // the crashed turn's end
  expect(resumed.at(-1)).toMatchObject({ type: "turn-end", reason: { kind: "completed" } });
}, 60_000);
