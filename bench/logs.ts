// Synthetic session logs for the workloads: `buildLog` (W3/W4: turns of 3 steps with realistic
// sizes) and `loopHistory` (W2: the history a loop starts from, as plain turn specs every
// harness renders in its own message format, so all of them start from the same content).
import type { Session } from "../src/session/index.js";
import { LogDriver, newSession } from "../test/support/builders.js";

export const filler = (n: number, seed: number): string => {
  const words = ["alpha", "kernel", "session", "prefix", "header", "delta", "cache", "turn", "step", "tool"];
  let out = "";
  for (let i = 0; out.length < n; i++) out += `${words[(seed + i * 7) % words.length]} `;
  return out.slice(0, n);
};

/**
 * A log of turns of 3 steps (two with one tool call each, realistic sizes), grown until it has
 * `events` events, or exactly `steps` steps (the last turn is cut short to land on it).
 */
export function buildLog(target: { readonly events: number } | { readonly steps: number }, id = "bench"): Session {
  const driver = new LogDriver(newSession(id));
  let n = 0;
  let steps = 0;
  const more = (): boolean => ("events" in target ? driver.session.length < target.events : steps < target.steps);
  while (more()) {
    n++;
    const all = [
      {
        text: filler(300, n + 1),
        toolCalls: [{ name: "read", args: `{"path":"src/file${n}.ts"}`, result: filler(1500, n + 2) }],
      },
      {
        text: filler(300, n + 3),
        toolCalls: [{ name: "read", args: `{"path":"test/file${n}.ts"}`, result: filler(800, n + 4) }],
      },
      { text: filler(400, n + 5) },
    ];
    const take = "steps" in target ? Math.min(3, target.steps - steps) : 3;
    // A short last turn still ends on a text-only step.
    const turnSteps = take === 3 ? all : [...all.slice(0, take - 1), all[2]!];
    driver.turn({ prompt: filler(200, n), steps: turnSteps });
    steps += take;
  }
  return driver.session;
}

/** One past turn of a W2 history: 4 messages (user, assistant + tool call, tool result, assistant). */
export interface HistoryTurn {
  readonly prompt: string;
  readonly text: string;
  readonly callId: string;
  readonly tool: string;
  readonly args: string;
  readonly result: string;
  readonly final: string;
}

/** The turns of a W2 history of `messages` messages (rounded up to a multiple of 4). */
export function* loopHistory(messages: number): Generator<HistoryTurn> {
  for (let i = 0; i < Math.ceil(messages / 4); i++) {
    yield {
      prompt: "continue the task",
      text: "reading",
      callId: `hist_${i}`,
      tool: "noop",
      args: `{"n":${i}}`,
      result: "ok ".repeat(40),
      final: "done ".repeat(20),
    };
  }
}

/** The W2 history as a Keelson log (the loop derives its history from it). */
export function loopHistorySession(messages: number, id: string): Session {
  const driver = new LogDriver(newSession(id));
  for (const t of loopHistory(messages)) {
    driver.turn({
      prompt: t.prompt,
      steps: [{ text: t.text, toolCalls: [{ name: t.tool, args: t.args, result: t.result }] }, { text: t.final }],
    });
  }
  return driver.session;
}
