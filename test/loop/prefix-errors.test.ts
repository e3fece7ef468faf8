// A composition that fails: the frozen seed refuses in-place edits, a throwing listener ends the
// turn with `error`, and a contribution that is not lossless JSON or not a message list is
// rejected as `invalid-prefix`. None is cached: the agent serves the next turn, which
// recomposes (PROPERTIES.md P5, P10).
import { describe, expect, test } from "vitest";
import type { Message } from "../../src/messages/index.js";
import {
  eventsMentioning,
  eventsOf,
  expectLogMatchesRequests,
  headerSnapshots,
  prefixContributor,
  scriptedAgent,
  turnEnds,
  user,
} from "./support.js";

const completed = { kind: "completed" };

describe("P5 the frozen seed", () => {
  const inPlaceEdits: [string, (seed: readonly Message[], rest: readonly Message[]) => void][] = [
    ["the seed argument", (seed) => void (seed as Message[]).push(user("PUSHED"))],
    ["the innermost next() result", (_seed, rest) => void (rest as Message[]).push(user("PUSHED"))],
    ["an unshift onto the seed", (seed) => void (seed as Message[]).unshift(user("PUSHED"))],
  ];
  test.each(inPlaceEdits)(
    "an in-place edit of %s throws a TypeError, ends the turn with error before any model call, and reaches no request",
    async (_name, edit) => {
      const { agent, provider } = scriptedAgent();
      let caught: unknown;
      let frozen: boolean | undefined;
      agent.hooks.on("agent/session-prefix", async ({ seed }, next) => {
        const rest = await next();
        frozen ??= Object.isFrozen(seed) && Object.isFrozen(rest);
        if (caught === undefined) {
          try {
            edit(seed, rest);
          } catch (error) {
            caught = error;
            throw error;
          }
        }
        return [user("catalog"), ...rest];
      });

      const first = await agent.send("one");
      expect(frozen).toBe(true);
      expect(caught).toBeInstanceOf(TypeError);
      expect(first.reason).toMatchObject({
        kind: "error",
        step: 1,
        code: "exception",
        message: (caught as Error).message,
      });
      expect(provider.requests).toHaveLength(0);
      expect(eventsOf(agent, "request/header")).toEqual([]);

      expect(await agent.send("two")).toEqual({ turn: 2, reason: completed });
      expect(provider.requests).toHaveLength(1);
      expect(provider.requests[0]!.messages.slice(0, 1)).toEqual([user("catalog")]);
      expect(eventsMentioning(agent, "PUSHED")).toEqual([]);
      expectLogMatchesRequests(agent, provider);
      await agent.dispose();
    },
  );
});

describe("P10 a failing composition ends the turn, is never cached, and the next turn recomposes", () => {
  test("a throwing prefix listener ends the turn with error naming its message; the agent serves the next turn, which recomposes", async () => {
    const catalog = prefixContributor("catalog", (run) => {
      if (run === 1) throw new Error("catalog service unavailable");
      return [user("catalog v2")];
    });
    const { agent, provider } = scriptedAgent({ plugins: [catalog.plugin] });
    const reported: unknown[] = [];
    agent.hooks.on("agent/error", ({ error }) => void reported.push(error));

    const first = await agent.send("one");
    expect(first.reason.kind).toBe("error");
    expect(first.reason).toMatchObject({ message: expect.stringContaining("catalog service unavailable") });
    expect(reported).toEqual([expect.objectContaining({ message: "catalog service unavailable" })]);
    expect(provider.requests).toHaveLength(0);
    expect(agent.status).toBe("idle");

    expect(await agent.send("two")).toEqual({ turn: 2, reason: completed });
    expect(await agent.send("three")).toEqual({ turn: 3, reason: completed });
    expect(catalog.calls).toBe(2);
    expect(headerSnapshots(agent)).toEqual([
      { reason: "initial", header: expect.objectContaining({ messagePrefix: [user("catalog v2")] }) },
    ]);
    for (const request of provider.requests) expect(request.messages[0]).toEqual(user("catalog v2"));
    expectLogMatchesRequests(agent, provider);
    await agent.dispose();
  });

  const textWith = (extra: Record<string, unknown>) => [
    { role: "user", content: [{ type: "text", text: "INVALID", ...extra }] },
  ];
  const cyclic = (): unknown => {
    const message: Record<string, unknown> = { role: "user", content: [{ type: "text", text: "INVALID" }] };
    message.self = message;
    return [message];
  };
  const sparse = (): unknown => {
    const list = [user("INVALID")];
    list.length = 3; // holes at 1 and 2
    return list;
  };
  const invalid: [string, () => unknown, string][] = [
    ["an undefined member", () => textWith({ note: undefined }), "sessionPrefix[0].content[0].note"],
    ["a Date", () => textWith({ at: new Date(0) }), "sessionPrefix[0].content[0].at"],
    ["NaN", () => textWith({ weight: Number.NaN }), "sessionPrefix[0].content[0].weight"],
    ["-0", () => textWith({ weight: -0 }), "sessionPrefix[0].content[0].weight"],
    ["a cycle", cyclic, "sessionPrefix[0].self"],
    ["a sparse list", sparse, "sessionPrefix[1]"],
    [
      "a system-role message",
      () => [{ role: "system", content: [{ type: "text", text: "INVALID" }] }],
      "sessionPrefix[0].role",
    ],
    ["a message without content", () => [{ role: "user" }], "sessionPrefix[0].content"],
    [
      "text that is not a string",
      () => [{ role: "user", content: [{ type: "text", text: 7 }] }],
      "sessionPrefix[0].content[0].text",
    ],
    [
      "a tool-call block in a user message",
      () => [{ role: "user", content: [{ type: "tool-call", callId: "c1", name: "read", arguments: "{}" }] }],
      "sessionPrefix[0].content[0].type",
    ],
    ["a tool message without its result", () => [{ role: "tool", content: [] }], "sessionPrefix[0].content"],
    ["a single message instead of a list", () => user("INVALID"), "sessionPrefix"],
    ["null", () => null, "sessionPrefix"],
    ["undefined (a listener that forgot to return)", () => undefined, "sessionPrefix"],
  ];
  test.each(invalid)(
    "a contribution with %s ends the turn with invalid-prefix naming where, before any model call, and is never cached",
    async (_name, make, where) => {
      const { agent, provider } = scriptedAgent();
      let runs = 0;
      agent.hooks.on("agent/session-prefix", async (_payload, next) => {
        runs++;
        return runs === 1 ? (make() as Message[]) : [user("valid catalog"), ...(await next())];
      });

      const first = await agent.send("one");
      expect(first.reason).toMatchObject({
        kind: "error",
        step: 1,
        code: "invalid-prefix",
        message: expect.stringContaining("session prefix is invalid"),
      });
      const message = (first.reason as { message: string }).message;
      expect(message.slice(message.lastIndexOf(" at ") + 4)).toBe(where);
      expect(provider.requests).toHaveLength(0);
      expect(eventsOf(agent, "request/header")).toEqual([]);

      expect(await agent.send("two")).toEqual({ turn: 2, reason: completed });
      expect(runs).toBe(2);
      expect(provider.requests[0]!.messages).toEqual([user("valid catalog"), user("one"), user("two")]);
      expect(headerSnapshots(agent)).toEqual([
        { reason: "initial", header: expect.objectContaining({ messagePrefix: [user("valid catalog")] }) },
      ]);
      expect(eventsMentioning(agent, "INVALID")).toEqual([]);
      expect(turnEnds(agent).map((r) => r.kind)).toEqual(["error", "completed"]);
      expectLogMatchesRequests(agent, provider);
      await agent.dispose();
    },
  );
});
