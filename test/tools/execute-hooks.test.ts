// executeToolCall around its hooks: `tools/pre-execute` may deny (the tool never runs),
// `tools/post-execute` may accept with replacement content and additionalContext or block with
// feedback; hooks see a frozen invocation with parsed arguments; a throwing hook becomes an
// error result and is reported through the bus — the call never rejects.
import { describe, expect, test } from "vitest";
import { validateToolResultContent } from "../../src/messages/index.js";
import type { ToolCallOutcome, ToolInvocation } from "../../src/tools/index.js";
import { harness, probe, textOf } from "./support.js";

const note = { type: "text", text: "remember: tests are green" } as const;

function withRead() {
  const h = harness();
  const p = probe("read");
  h.registry.register(p.tool);
  return { ...h, runs: p.runs };
}

describe("tools/pre-execute", () => {
  test("deny{reason} gives 'denied' with the reason, and the tool never runs", async () => {
    const h = withRead();
    h.hooks.on("tools/pre-execute", () => ({ action: "deny", reason: "writes outside the sandbox" }));
    const outcome = await h.call("read", { path: "/etc/passwd" });
    expect(outcome).toMatchObject({ isError: true, error: "denied" });
    expect(textOf(outcome)).toContain("writes outside the sandbox");
    expect(h.runs).toEqual([]);
  });

  test("result{output} answers for the tool: it never runs, the output is normalized, post-execute sees it", async () => {
    const h = withRead();
    h.hooks.on("tools/pre-execute", () => ({
      action: "result",
      output: { content: [{ type: "text", text: "cached: 42 words" }], isError: true, meta: { from: "cache" } },
    }));
    const seen: ToolCallOutcome[] = [];
    h.hooks.on("tools/post-execute", ({ outcome }, next) => {
      seen.push(outcome);
      return next();
    });
    const outcome = await h.call("read", { path: "a" });
    expect(outcome).toEqual({
      content: [{ type: "text", text: "cached: 42 words" }],
      isError: true,
      meta: { from: "cache" },
    });
    expect(seen).toEqual([outcome]);
    expect(h.runs).toEqual([]);
    h.hooks.on("tools/pre-execute", () => ({ action: "result", output: "plain text" }));
    expect(textOf(await h.call("read", { path: "b" }))).toBe("cached: 42 words"); // the first listener decides
  });

  test("result{output} with an invalid output is an invalid-output error result", async () => {
    const h = withRead();
    h.hooks.on("tools/pre-execute", () => ({ action: "result", output: { content: "not parts" } as never }));
    expect(await h.call("read", { path: "a" })).toMatchObject({ isError: true, error: "invalid-output" });
    expect(h.runs).toEqual([]);
  });

  test("allow runs the tool", async () => {
    const h = withRead();
    h.hooks.on("tools/pre-execute", () => ({ action: "allow" }));
    expect(textOf(await h.call("read", { path: "a" }))).toBe("read a");
    expect(h.runs).toHaveLength(1);
  });

  test("an outer listener can overrule an inner denial", async () => {
    const h = withRead();
    h.hooks.on("tools/pre-execute", async (_payload, next) => {
      await next();
      return { action: "allow" };
    });
    h.hooks.on("tools/pre-execute", () => ({ action: "deny", reason: "inner says no" }));
    expect((await h.call("read", { path: "a" })).isError).toBe(false);
  });

  test("receives a frozen invocation with the parsed, frozen arguments", async () => {
    const h = withRead();
    const seen: ToolInvocation[] = [];
    h.hooks.on("tools/pre-execute", ({ call }, next) => {
      seen.push(call);
      return next();
    });
    await h.call("read", { path: "a", opts: { deep: [1] } }, { callId: "c-7" });
    const [call] = seen;
    expect(call).toEqual({
      callId: "c-7",
      name: "read",
      rawArguments: '{"path":"a","opts":{"deep":[1]}}',
      arguments: { path: "a", opts: { deep: [1] } },
      turn: 1,
      step: 1,
      sessionId: "s-tools",
    });
    expect(Object.isFrozen(call)).toBe(true);
    expect(Object.isFrozen(call!.arguments)).toBe(true);
    expect(Object.isFrozen((call!.arguments as { opts: { deep: unknown } }).opts.deep)).toBe(true);
    expect(() => {
      (call as { name: string }).name = "write";
    }).toThrow(TypeError);
  });

  test("sees unparseable arguments as undefined, with the raw string kept", async () => {
    const h = withRead();
    let seen: ToolInvocation | undefined;
    h.hooks.on("tools/pre-execute", ({ call }, next) => {
      seen = call;
      return next();
    });
    await h.call("read", "{oops");
    expect(seen?.arguments).toBeUndefined();
    expect(seen?.rawArguments).toBe("{oops");
  });

  test("runs before the tool is looked up, so it sees calls to unknown tools too", async () => {
    const h = harness();
    const names: string[] = [];
    h.hooks.on("tools/pre-execute", ({ call }, next) => {
      names.push(call.name);
      return next();
    });
    expect((await h.call("ghost")).error).toBe("unknown-tool");
    expect(names).toEqual(["ghost"]);
  });
});

describe("tools/post-execute", () => {
  test("receives the invocation and the outcome of the call", async () => {
    const h = withRead();
    const seen: [ToolInvocation, ToolCallOutcome][] = [];
    h.hooks.on("tools/post-execute", ({ call, outcome }, next) => {
      seen.push([call, outcome]);
      return next();
    });
    await h.call("read", { path: "a" });
    expect(seen).toHaveLength(1);
    expect(seen[0]![0].arguments).toEqual({ path: "a" });
    expect(Object.isFrozen(seen[0]![0])).toBe(true);
    expect(seen[0]![1]).toEqual({ content: [{ type: "text", text: "read a" }], isError: false });
  });

  test("sees failed calls too", async () => {
    const h = withRead();
    const errors: (string | undefined)[] = [];
    h.hooks.on("tools/post-execute", ({ outcome }, next) => {
      errors.push(outcome.error);
      return next();
    });
    h.hooks.on("tools/pre-execute", ({ call }, next) =>
      call.callId === "deny-me" ? { action: "deny", reason: "no" } : next(),
    );
    await h.call("ghost");
    await h.call("read", { path: 1 });
    await h.call("read", { path: "a" }, { callId: "deny-me" });
    expect(errors).toEqual(["unknown-tool", "invalid-arguments", "denied"]);
  });

  test("accept with no changes returns the outcome unchanged", async () => {
    const h = withRead();
    h.hooks.on("tools/post-execute", () => ({ action: "accept" }));
    expect(await h.call("read", { path: "a" })).toEqual({
      content: [{ type: "text", text: "read a" }],
      isError: false,
    });
  });

  test("accept{content, additionalContext} replaces the content and adds the context", async () => {
    const h = withRead();
    h.hooks.on("tools/post-execute", () => ({
      action: "accept",
      content: [{ type: "text", text: "[redacted]" }],
      additionalContext: [note],
    }));
    expect(await h.call("read", { path: "a" })).toEqual({
      content: [{ type: "text", text: "[redacted]" }],
      isError: false,
      additionalContext: [note],
    });
  });

  test("accept{additionalContext} alone keeps the tool's content", async () => {
    const h = withRead();
    h.hooks.on("tools/post-execute", () => ({ action: "accept", additionalContext: [note] }));
    expect(await h.call("read", { path: "a" })).toEqual({
      content: [{ type: "text", text: "read a" }],
      isError: false,
      additionalContext: [note],
    });
  });

  test("block{feedback, additionalContext} gives 'blocked' with the feedback and keeps the context", async () => {
    const h = withRead();
    h.hooks.on("tools/post-execute", () => ({
      action: "block",
      feedback: "Output contained a secret; try a narrower read.",
      additionalContext: [note],
    }));
    const outcome = await h.call("read", { path: "a" });
    expect(outcome).toEqual({
      content: [{ type: "text", text: "Output contained a secret; try a narrower read." }],
      isError: true,
      error: "blocked",
      additionalContext: [note],
    });
    expect(h.runs).toHaveLength(1);
  });

  test("block without additionalContext has no additionalContext key", async () => {
    const h = withRead();
    h.hooks.on("tools/post-execute", () => ({ action: "block", feedback: "no" }));
    expect(await h.call("read", { path: "a" })).not.toHaveProperty("additionalContext");
  });

  test("a replacement that is not valid tool-result content does not reach the model as a success", async () => {
    const h = withRead();
    h.hooks.on("tools/post-execute", () => ({
      action: "accept",
      content: [{ type: "tool-call", callId: "x", name: "y", arguments: "{}" }] as never,
    }));
    const outcome = await h.call("read", { path: "a" });
    expect(outcome.isError).toBe(true);
    expect(() => validateToolResultContent(outcome.content)).not.toThrow();
  });
});

describe("throwing hooks", () => {
  test("a throwing pre-execute listener gives 'threw', is reported, and the tool never runs", async () => {
    const h = withRead();
    const boom = new Error("policy engine offline");
    h.hooks.on("tools/pre-execute", () => {
      throw boom;
    });
    const outcome = await h.call("read", { path: "a" });
    expect(outcome).toMatchObject({ isError: true, error: "threw" });
    expect(textOf(outcome)).toContain("policy engine offline");
    expect(h.reported).toEqual([{ error: boom, hook: "tools/pre-execute" }]);
    expect(h.runs).toEqual([]);
  });

  test("a throwing post-execute listener gives 'threw' and is reported, after the tool ran", async () => {
    const h = withRead();
    const boom = new Error("audit log full");
    h.hooks.on("tools/post-execute", async () => {
      throw boom;
    });
    const outcome = await h.call("read", { path: "a" });
    expect(outcome).toMatchObject({ isError: true, error: "threw" });
    expect(textOf(outcome)).toContain("audit log full");
    expect(h.reported).toEqual([{ error: boom, hook: "tools/post-execute" }]);
    expect(h.runs).toHaveLength(1);
  });

  test("a listener returning no decision becomes an error result, reported", async () => {
    const h = withRead();
    h.hooks.on("tools/pre-execute", () => undefined as never);
    const outcome = await h.call("read", { path: "a" });
    expect(outcome).toMatchObject({ isError: true, error: "threw" });
    expect(h.reported.map((r) => r.hook)).toEqual(["tools/pre-execute"]);
    expect(h.runs).toEqual([]);
  });

  test("a failing tool is not reported through the bus (it is the model's business)", async () => {
    const h = harness();
    h.registry.register(
      probe("read", () => {
        throw new Error("tool bug");
      }).tool,
    );
    await h.call("read", { path: "a" });
    expect(h.reported).toEqual([]);
  });

  test.each<[string, unknown]>([
    ["a string", "just a string"],
    ["undefined", undefined],
    ["an object with no string form", Object.create(null)],
  ])("a pre-execute listener throwing %s still resolves to an error result", async (_what, thrownValue) => {
    const h = withRead();
    h.hooks.on("tools/pre-execute", () => {
      throw thrownValue;
    });
    const outcome = await h.call("read", { path: "a" });
    expect(outcome).toMatchObject({ isError: true, error: "threw" });
    expect(h.reported).toHaveLength(1);
  });
});
