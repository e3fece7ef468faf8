// Structured output across instances and through `stream()` (issue #23 §3): a turn with output
// stored in a JSONL store, a new process (resumeAgent) asked again with output, a stored log whose
// every request reconstructs (verifyLog clean, the output config on the `resume` snapshot) and
// whose outputs `outputOf` recomputes from the file alone; and `agent.stream(prompt, { output })`,
// whose outcome and `turn-end` event carry the typed output.
import { afterEach, describe, expect, expectTypeOf, test } from "vitest";
import { z } from "zod";
import { ScriptedProvider } from "../../src/llm/index.js";
import { createAgent, resumeAgent, type TurnEvent } from "../../src/loop/index.js";
import { outputOf } from "../../src/output/index.js";
import { reconstructRequests, verifyLog } from "../../src/reconstruct/index.js";
import type { SessionEvent } from "../../src/session/index.js";
import { type TempJsonlRoot, tempJsonlRoot } from "../store/jsonl-harness.js";
import { fixedClock } from "../support/builders.js";

const verdict = z.object({ verdict: z.enum(["yes", "no"]), reason: z.string() });
let dir: TempJsonlRoot | undefined;

afterEach(async () => {
  await dir?.cleanup();
  dir = undefined;
});

const options = (provider: ScriptedProvider) => ({ provider, model: "scripted:m", clock: fixedClock() });

describe("structured output across a resume (JSONL store)", () => {
  test("a resumed agent asked again works; the stored log verifies and outputOf recomputes both turns", async () => {
    dir = await tempJsonlRoot();
    const store = dir.open();
    const firstProvider = new ScriptedProvider([{ text: '{"verdict":"yes","reason":"it fits"}' }]);
    const first = createAgent({ ...options(firstProvider), store });
    const one = await first.send("does it fit?", { output: verdict });
    expect(one.output).toEqual({ verdict: "yes", reason: "it fits" });
    const id = first.session.id;
    await first.dispose();

    const resumedProvider = new ScriptedProvider([
      { text: '{"verdict":"maybe"}' },
      { text: '{"verdict":"no","reason":"too big"}' },
    ]);
    const resumed = await resumeAgent(dir.open(), id, { ...options(resumedProvider), output: verdict });
    const two = await resumed.send("and now?");
    expectTypeOf(two.output).toEqualTypeOf<{ verdict: "yes" | "no"; reason: string } | undefined>();
    expect(two.output).toEqual({ verdict: "no", reason: "too big" });
    // The new instance's first request: a `resume` snapshot carrying the output config.
    const snapshots = resumed.session.events.filter(
      (e) => e.type === "request/header",
    ) as SessionEvent<"request/header">[];
    expect(snapshots.map((e) => e.data.reason)).toEqual(["initial", "resume"]);
    expect((snapshots[1]!.data.header.config as { output?: unknown }).output).toEqual(
      (snapshots[0]!.data.header.config as { output?: unknown }).output,
    );
    await resumed.dispose();

    const { session } = await dir.open().load(id, { readOnly: true });
    const events = session.events;
    expect(verifyLog(events).issues).toEqual([]);
    const requests = reconstructRequests(events);
    expect(requests).toHaveLength(3); // turn 1; turn 2 and its repair step
    const sent = [...firstProvider.requests, ...resumedProvider.requests].map((r) => r.output);
    expect(requests.map((r) => r.request.output)).toEqual(sent);
    expect(sent.every((output) => output?.name === "output")).toBe(true);
    expect(await outputOf(events, verdict, { turn: 1 })).toEqual({
      ok: true,
      value: { verdict: "yes", reason: "it fits" },
    });
    expect(await outputOf(events, verdict, { turn: 2 })).toEqual({
      ok: true,
      value: { verdict: "no", reason: "too big" },
    });
  });
});

describe("structured output through stream()", () => {
  test("the outcome and the turn-end event carry the typed output; the repair prompt streams as a logged event", async () => {
    const provider = new ScriptedProvider([{ text: "yes" }, { text: '{"verdict":"yes","reason":"ok"}' }]);
    const agent = createAgent(options(provider));
    const stream = agent.stream("go", { output: verdict });
    const events: TurnEvent[] = [];
    for await (const event of stream) events.push(event);
    const outcome = await stream.outcome;
    expectTypeOf(outcome.output).toEqualTypeOf<{ verdict: "yes" | "no"; reason: string } | undefined>();
    expect(outcome.output).toEqual({ verdict: "yes", reason: "ok" });
    const end = events.at(-1);
    expect(end?.type === "turn-end" && end.outcome?.output).toEqual({ verdict: "yes", reason: "ok" });
    const repair = events.find((e) => e.type === "log-event" && e.event.type === "context/message");
    expect(repair?.type === "log-event" && (repair.event as SessionEvent<"context/message">).data.source).toBe(
      "output-repair",
    );
    expect(events.filter((e) => e.type === "assistant-message")).toHaveLength(2);
  });

  test("a failed stream ends with turn-end error invalid-output and the issues on its outcome", async () => {
    const agent = createAgent({ ...options(new ScriptedProvider([{ text: "{}" }])), repair: 0 });
    const stream = agent.stream("go", { output: verdict });
    const events: TurnEvent[] = [];
    for await (const event of stream) events.push(event);
    const end = events.at(-1)!;
    expect(end.type === "turn-end" && end.reason).toMatchObject({ kind: "error", code: "invalid-output" });
    expect((await stream.outcome).issues).toEqual([
      'verdict: Invalid option: expected one of "yes"|"no"',
      "reason: Invalid input: expected string, received undefined",
    ]);
  });
});
