// `keelson send --follow`'s printing (src/cli/send-follow.ts): the printed answer is the logged
// one even when live deltas stopped mid-step (found from outside: a PostgreSQL restart while
// following printed a truncated answer and exited 0) — the rest of the step's text is printed
// from its committed answer.
import { describe, expect, test } from "vitest";
import { printFollowedTurn } from "../../src/cli/send-follow.js";
import type { FleetClient } from "../../src/fleet/index.js";
import type { TurnEvent } from "../../src/loop/index.js";

/** What `send --follow` prints for these events (the client's stream yields them, in order). */
async function printed(events: readonly TurnEvent[], err: string[] = []): Promise<string> {
  const client = {
    stream: async function* () {
      yield* events;
    },
  } as unknown as FleetClient;
  let out = "";
  await printFollowedTurn(client, "turn-1", {
    json: false,
    out: (text) => (out += text),
    err: (text) => err.push(text),
  });
  return out;
}

const at = { turn: 1, step: 1 };
const stepStart: TurnEvent = { type: "step-start", seq: 1, ...at };
const delta = (index: number, text: string): TurnEvent => ({
  type: "text-delta",
  ...at,
  index,
  id: `text_1_1_${index}`,
  delta: text,
});
const answer = (...texts: string[]): TurnEvent => ({
  type: "assistant-message",
  seq: 2,
  ...at,
  content: texts.map((text) => ({ type: "text" as const, text })),
});

describe("send --follow prints the logged answer", () => {
  test("every delta seen: the committed answer adds nothing", async () => {
    expect(await printed([stepStart, delta(0, "Hello "), delta(0, "world"), answer("Hello world")])).toBe(
      "Hello world\n",
    );
  });

  test("deltas stopped mid-block: the rest of that block, then the blocks never seen", async () => {
    expect(await printed([stepStart, delta(0, "w0 w1 "), answer("w0 w1 w2 w3", "second")])).toBe(
      "w0 w1 w2 w3\nsecond\n",
    );
  });

  test("no delta seen (connected late): the whole answer, blocks on their own lines", async () => {
    expect(await printed([stepStart, answer("first", "second")])).toBe("first\nsecond\n");
  });

  test("deltas of an attempt that was retried: the committed text on a line of its own", async () => {
    const retry: TurnEvent = { type: "retry", seq: 2, ...at, attempt: 2, code: "overloaded", delayMs: 0 };
    expect(await printed([stepStart, delta(0, "abandoned"), retry, answer("kept")])).toBe("abandoned\nkept\n");
    expect(await printed([stepStart, delta(0, "abandon"), answer("kept")])).toBe("abandon\nkept\n");
  });

  // Found from outside: a worker killed before it saved the first step — the re-run's text was
  // printed on the same line, after the dead attempt's, with no word that the first was void.
  test("a worker lost before saving the step: its re-run from the same seq starts a new line, and stderr says the text above is void", async () => {
    const err: string[] = [];
    const events = [stepStart, delta(0, "dead attem"), stepStart, delta(0, "kept"), answer("kept")];
    expect(await printed(events, err)).toBe("dead attem\nkept\n");
    expect(err).toEqual([
      "keelson send: turn turn-1 runs again (its worker was lost before saving this step): the text above is not part of its answer\n",
    ]);
    const none: string[] = [];
    await printed([stepStart, delta(0, "a"), answer("a")], none);
    expect(none).toEqual([]);
  });

  // Found from outside: the re-run came back from an event before the step (the request's
  // header, seq 0 here) and its step's start was not delivered again — the re-run's deltas were
  // counted after the dead attempt's, and the committed answer was printed a second time.
  test("a re-run delivered again from before its step's start: the answer once, on its own line", async () => {
    const header = { type: "log-event", seq: 0, event: { type: "request/header" } } as unknown as TurnEvent;
    const err: string[] = [];
    const events = [
      header,
      stepStart,
      delta(0, "Understood: alpha beta gam"),
      header,
      delta(0, "Understood: "),
      delta(0, "alpha beta gamma delta"),
      answer("Understood: alpha beta gamma delta"),
    ];
    expect(await printed(events, err)).toBe("Understood: alpha beta gam\nUnderstood: alpha beta gamma delta\n");
    expect(err).toHaveLength(1);
  });
});
