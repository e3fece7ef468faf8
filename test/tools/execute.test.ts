// executeToolCall outcomes: a successful call yields the tool's output; unknown tools, bad
// arguments, throwing tools and invalid outputs all become isError results the model sees —
// the returned promise never rejects.
import { describe, expect, test } from "vitest";
import { z } from "zod";
import { validateToolResultContent } from "../../src/messages/index.js";
import type { ToolOutput } from "../../src/tools/index.js";
import { harness, probe, textOf } from "./support.js";

const image = { type: "image", mediaType: "image/png", data: "iVBORw0KGgo=" } as const;

describe("executeToolCall: successful calls", () => {
  test("a string output becomes one text part, not an error", async () => {
    const h = harness();
    h.registry.register(probe("read").tool);
    expect(await h.call("read", { path: "a.txt" })).toEqual({
      content: [{ type: "text", text: "read a.txt" }],
      isError: false,
    });
  });

  test("an async tool's output is awaited", async () => {
    const h = harness();
    h.registry.register(probe("read", async ({ path }) => `async ${path}`).tool);
    expect(textOf(await h.call("read", { path: "a" }))).toBe("async a");
  });

  test("an object output keeps its parts and meta", async () => {
    const h = harness();
    h.registry.register(
      probe("shot", () => ({ content: [{ type: "text", text: "see:" }, image], meta: { bytes: 8, tags: ["png"] } }))
        .tool,
    );
    expect(await h.call("shot", { path: "p" })).toEqual({
      content: [{ type: "text", text: "see:" }, image],
      isError: false,
      meta: { bytes: 8, tags: ["png"] },
    });
  });

  test("an object output may flag itself as an error, which carries no pipeline error code", async () => {
    const h = harness();
    h.registry.register(probe("grep", () => ({ content: [{ type: "text", text: "no matches" }], isError: true })).tool);
    const outcome = await h.call("grep", { path: "p" });
    expect(outcome).toEqual({ content: [{ type: "text", text: "no matches" }], isError: true });
    expect(outcome).not.toHaveProperty("error");
  });

  test("an object output is copied: mutating it after return changes nothing", async () => {
    const h = harness();
    const parts = [{ type: "text" as const, text: "original" }];
    const meta = { n: 1 };
    h.registry.register(probe("t", () => ({ content: parts, meta })).tool);
    const outcome = await h.call("t", { path: "p" });
    parts[0]!.text = "changed";
    meta.n = 2;
    expect(outcome.content).toEqual([{ type: "text", text: "original" }]);
    expect(outcome.meta).toEqual({ n: 1 });
  });

  test("execute receives the schema's parsed output (defaults applied, unknown keys stripped)", async () => {
    const h = harness();
    let received: unknown;
    h.registry.register({
      name: "list",
      description: "lists",
      input: z.object({ dir: z.string(), depth: z.number().default(2) }),
      execute: (args) => {
        received = args;
        return "ok";
      },
    });
    await h.call("list", { dir: "src", extra: true });
    expect(received).toEqual({ dir: "src", depth: 2 });
  });

  test("the context carries callId, sessionId and cwd", async () => {
    const h = harness();
    const p = probe("read");
    h.registry.register(p.tool);
    await h.call("read", { path: "a" }, { callId: "toolu_42", cwd: "/work/project" });
    const { context } = p.runs[0]!;
    expect(context.callId).toBe("toolu_42");
    expect(context.sessionId).toBe("s-tools");
    expect(context.cwd).toBe("/work/project");
    expect(context.signal).toBeInstanceOf(AbortSignal);
    expect(context.signal.aborted).toBe(false);
  });

  test("without a cwd the context has no cwd key", async () => {
    const h = harness();
    const p = probe("read");
    h.registry.register(p.tool);
    await h.call("read", { path: "a" });
    expect(p.runs[0]!.context).not.toHaveProperty("cwd");
  });

  test("the tool runs exactly once", async () => {
    const h = harness();
    const p = probe("read");
    h.registry.register(p.tool);
    await h.call("read", { path: "a" });
    expect(p.runs).toHaveLength(1);
  });
});

describe("executeToolCall: failures become error results", () => {
  test("an unknown tool gives 'unknown-tool' listing the available tools", async () => {
    const h = harness();
    h.registry.register(probe("write").tool);
    h.registry.register(probe("read").tool);
    const outcome = await h.call("delete", { path: "a" });
    expect(outcome.isError).toBe(true);
    expect(outcome.error).toBe("unknown-tool");
    expect(textOf(outcome)).toContain('"delete"');
    expect(textOf(outcome)).toContain("read, write");
  });

  test("an unknown tool with no tools registered says so", async () => {
    const outcome = await harness().call("read", {});
    expect(outcome.error).toBe("unknown-tool");
    expect(textOf(outcome)).toContain("none");
  });

  test.each(["{path: 'a'}", "", '{"path":', "undefined"])(
    "arguments %j that are not JSON give 'invalid-arguments'",
    async (raw) => {
      const h = harness();
      const p = probe("read");
      h.registry.register(p.tool);
      const outcome = await h.call("read", raw);
      expect(outcome).toMatchObject({ isError: true, error: "invalid-arguments" });
      expect(textOf(outcome)).toContain("not valid JSON");
      expect(p.runs).toEqual([]);
    },
  );

  test("arguments failing the schema give 'invalid-arguments' naming the field", async () => {
    const h = harness();
    const p = probe("read");
    h.registry.register(p.tool);
    const outcome = await h.call("read", { path: 42 });
    expect(outcome).toMatchObject({ isError: true, error: "invalid-arguments" });
    expect(textOf(outcome)).toContain("read");
    expect(textOf(outcome)).toContain("path");
    expect(p.runs).toEqual([]);
  });

  test("a nested failing field is named by its full path", async () => {
    const h = harness();
    h.registry.register({
      name: "edit",
      description: "d",
      input: z.object({ edits: z.array(z.object({ line: z.number() })) }),
      execute: () => "ok",
    });
    const outcome = await h.call("edit", { edits: [{ line: 1 }, { line: "two" }] });
    expect(outcome.error).toBe("invalid-arguments");
    expect(textOf(outcome)).toContain("edits.1.line");
  });

  test("a missing required field and a non-object root are invalid arguments", async () => {
    const h = harness();
    h.registry.register(probe("read").tool);
    expect((await h.call("read", {})).error).toBe("invalid-arguments");
    expect((await h.call("read", [1, 2])).error).toBe("invalid-arguments");
    expect((await h.call("read", "null")).error).toBe("invalid-arguments");
  });

  test("a tool that throws gives 'threw' with its message", async () => {
    const h = harness();
    h.registry.register(
      probe("read", () => {
        throw new Error("ENOENT: no such file");
      }).tool,
    );
    const outcome = await h.call("read", { path: "a" });
    expect(outcome).toMatchObject({ isError: true, error: "threw" });
    expect(textOf(outcome)).toContain("ENOENT: no such file");
  });

  test("a tool that rejects with a non-Error gives 'threw' with its string form", async () => {
    const h = harness();
    h.registry.register(probe("read", () => Promise.reject("disk on fire")).tool);
    const outcome = await h.call("read", { path: "a" });
    expect(outcome.error).toBe("threw");
    expect(textOf(outcome)).toContain("disk on fire");
  });

  test.each<[string, unknown]>([
    ["content holding a non-JSON value", { content: [{ type: "text", text: "ok", extra: () => 1 }] }],
    ["content holding undefined", { content: [{ type: "text", text: undefined }] }],
    ["content holding NaN", { content: [{ type: "text", text: "n" }], meta: { ratio: Number.NaN } }],
    ["a tool-call block", { content: [{ type: "tool-call", callId: "c", name: "n", arguments: "{}" }] }],
    ["a reasoning block", { content: [{ type: "reasoning", text: "hmm" }] }],
    ["a text block without text", { content: [{ type: "text" }] }],
    ["content that is not an array", { content: "just a string" }],
    ["no content at all", { isError: false }],
    ["a number", 42],
    ["undefined", undefined],
    ["null", null],
    ["meta that is not an object", { content: [], meta: "not an object" }],
    ["meta that is an array", { content: [], meta: [1, 2] }],
  ])("an output with %s gives 'invalid-output'", async (_what, output) => {
    const h = harness();
    h.registry.register(probe("bad", () => output as ToolOutput).tool);
    const outcome = await h.call("bad", { path: "p" });
    expect(outcome).toMatchObject({ isError: true, error: "invalid-output" });
    expect(textOf(outcome)).toContain("bad");
  });

  test("every failure above still yields content that is valid tool-result content", async () => {
    const h = harness();
    h.registry.register(probe("bad", () => ({ content: [{ type: "tool-call" }] }) as unknown as ToolOutput).tool);
    for (const outcome of [await h.call("nope"), await h.call("bad", "{"), await h.call("bad", { path: "p" })]) {
      expect(() => validateToolResultContent(outcome.content)).not.toThrow();
    }
  });
});
