// Issue #20 ("what a new user tripped on"): the `session/event` hook's event did not narrow on
// `type` — `event.data.name` after `event.type === "tool/call"` needed a cast. The payload is
// now the discriminated union of events. This file is the regression test at the type level
// (`tsc -p .` checks it: on the old type, `event.data.name` does not compile) and at run time.
import { describe, expect, expectTypeOf, test } from "vitest";
import type { AgentPlugin } from "../../src/loop/index.js";
import type { SessionEvent } from "../../src/session/index.js";
import { scriptedAgent } from "./support.js";

describe("the session/event hook", () => {
  test("narrows event.data on event.type, with no cast, on the agent's bus and a plugin's", async () => {
    const seen: string[] = [];
    const plugin: AgentPlugin = (host) =>
      host.on("session/event", ({ event }) => {
        if (event.type === "turn/end") seen.push(`plugin: turn ${event.data.turn} ${event.data.reason.kind}`);
      });
    const { agent } = scriptedAgent({
      plugins: [plugin],
      replies: [{ toolCalls: [{ name: "read", arguments: { path: "a.txt" } }] }, { text: "ok" }],
    });
    agent.hooks.on("session/event", ({ event }) => {
      if (event.type === "tool/call") {
        expectTypeOf(event).toEqualTypeOf<SessionEvent<"tool/call">>();
        seen.push(`call ${event.data.name} ${event.data.callId}`);
      } else if (event.type === "tool/result") seen.push(`result ${event.data.callId} error=${event.data.isError}`);
    });
    await agent.send("read a.txt");
    expect(seen).toEqual([
      expect.stringMatching(/^call read \S+$/),
      expect.stringMatching(/^result \S+ error=(true|false)$/),
      "plugin: turn 1 completed",
    ]);
  });
});
