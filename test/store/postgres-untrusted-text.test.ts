// Issue #20 F1: a prompt holding U+0000 (or a lone surrogate) is saved by the PostgreSQL store.
// TEXT cannot hold NUL, and the session's title column used to get the raw first prompt, so
// every flush of that session failed ("invalid byte sequence for encoding UTF8: 0x00"): the
// turn ended `not-saved` with no event stored, and dispose()/close() threw. The event rows are
// JSON (NUL is `\u0000` there) and keep the text exactly; the title and cwd columns hold it with
// U+FFFD in place of what TEXT cannot hold.
import { afterEach, describe, expect, test } from "vitest";
import { ScriptedProvider } from "../../src/llm/index.js";
import { createAgent } from "../../src/loop/index.js";
import { fixedClock, LogDriver, newSession } from "../support/builders.js";
import { usePgDatabase } from "./postgres-harness.js";

const database = usePgDatabase();
afterEach(async () => {
  await database().closeStores();
  await database().empty();
});

const NUL_PROMPT = "a\u0000b";

describe("untrusted text in the PostgreSQL store's raw columns", () => {
  test("an agent turn whose prompt holds U+0000 saves every event; dispose and close resolve; the title shows U+FFFD", async () => {
    const store = database().open();
    const agent = createAgent({
      provider: new ScriptedProvider([], { fallback: { text: "ok" } }),
      model: "scripted:test",
      system: "You help.",
      clock: fixedClock(),
      cwd: "/tmp/odd\u0000dir",
      store,
    });
    const outcome = await agent.send(NUL_PROMPT);
    expect(outcome.reason).toEqual({ kind: "completed" });
    expect(outcome.saved).toBe(true);
    await expect(agent.dispose()).resolves.toBeUndefined();
    await expect(store.close()).resolves.toBeUndefined();

    const id = agent.session.id;
    const rows = await database().query<{ n: string }>(
      "SELECT count(*) AS n FROM keelson_events WHERE session_id = $1",
      [id],
    );
    expect(Number(rows[0]!.n)).toBe(agent.session.length);
    const reader = database().open();
    const loaded = await reader.load(id, { readOnly: true });
    expect(loaded.session.events).toEqual(agent.session.events); // the prompt's NUL kept exactly
    expect(loaded.session.header.cwd).toBe("/tmp/odd\u0000dir");
    const [summary] = await reader.list();
    expect(summary).toMatchObject({ id, title: "a\ufffdb", cwd: "/tmp/odd\ufffddir" });
  });

  test("a seed and an appended batch whose first prompt holds NUL and lone surrogates are stored", async () => {
    const store = database().open();
    const prompt = `x\u0000${"y".repeat(197)}\ud83d\ude00 \ud800 end \udc00`; // the 200-char cut splits the pair
    const session = new LogDriver(newSession("surrogates")).turn({ prompt, steps: [{ text: "ok" }] }).session;
    await store.create(session.header);
    store.append(session.id, session.events);
    await store.flush(session.id);
    await store.release(session.id);
    const [summary] = await store.list();
    expect(summary?.title).toBe(`x\ufffd${"y".repeat(197)}\ufffd`);
    const loaded = await store.load(session.id, { readOnly: true });
    expect(loaded.session.events).toEqual(session.events);

    const seeded = new LogDriver(newSession("seeded")).turn({
      prompt: "\u0000\ud800",
      steps: [{ text: "ok" }],
    }).session;
    await store.create(seeded.header, seeded.events);
    expect((await store.list()).find((s) => s.id === "seeded")?.title).toBe("\ufffd\ufffd");
  });
});
