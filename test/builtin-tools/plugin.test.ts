// builtinTools on a real agent (ScriptedProvider): the tools are registered over the session cwd
// and removed on unload; the permission policy gates write, edit and bash through approvals —
// deny names the flag, allow runs, ask asks (yes / no / always, and always stops asking for that
// tool), ask with nobody to ask pauses for agent.decide — and never asks about read-only tools.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { ScriptedProvider, type ScriptedToolCall } from "../../src/llm/index.js";
import { createAgent } from "../../src/loop/index.js";
import { z } from "zod";
import {
  type BuiltinToolsOptions,
  builtinTools,
  type PermissionAnswer,
  type PermissionRequest,
} from "../../src/builtin-tools/index.js";
import { defineTool, type ToolDefinition } from "../../src/tools/index.js";
import { fixedClock } from "../support/builders.js";
import { put, tempDir } from "./support.js";

interface ResultData {
  readonly content: readonly { type: string; text?: string }[];
  readonly isError: boolean;
  readonly error?: string;
}

/** Runs one turn whose model makes `calls` (one step each), then answers "done"; returns the tool results. */
async function runCalls(
  root: string,
  options: BuiltinToolsOptions,
  calls: readonly ScriptedToolCall[],
  tools: readonly ToolDefinition[] = [],
) {
  const provider = new ScriptedProvider(
    calls.map((call) => ({ toolCalls: [call] })),
    { fallback: { text: "done" } },
  );
  const agent = createAgent({
    provider,
    model: "scripted:test",
    cwd: root,
    plugins: [builtinTools({ sandbox: "off", ...options })], // the sandbox has its own tests (test/sandbox)
    tools,
    clock: fixedClock(),
  });
  expect(await agent.send("go")).toMatchObject({ turn: 1, reason: { kind: "completed" } });
  const results = agent.session.events
    .filter((e) => e.type === "tool/result")
    .map((e) => e.data as unknown as ResultData);
  const names = agent.tools.schemas().map((s) => s.name);
  await agent.dispose();
  return { results, texts: results.map((r) => r.content.map((p) => p.text ?? "").join("")), tools: names, agent };
}

/** An `ask` that answers from `answers` in order and records what it was asked. */
function asker(...answers: PermissionAnswer[]) {
  const asked: PermissionRequest[] = [];
  return {
    asked,
    ask: async (request: PermissionRequest): Promise<PermissionAnswer> => {
      asked.push(request);
      const answer = answers.shift();
      if (answer === undefined) throw new Error("asked more often than expected");
      return answer;
    },
  };
}

const write = (path: string, content = "x"): ScriptedToolCall => ({ name: "write", arguments: { path, content } });
const bash = (command: string): ScriptedToolCall => ({ name: "bash", arguments: { command } });

describe("builtinTools plugin", () => {
  test("registers all seven tools over the session cwd and removes them on unload", async () => {
    const root = await tempDir();
    await put(root, "hello.txt", "hi there\n");
    const run = await runCalls(root, {}, [{ name: "read", arguments: { path: "hello.txt" } }]);
    expect(run.tools).toEqual(["bash", "edit", "glob", "grep", "ls", "read", "write"]);
    expect(run.texts).toEqual(["     1\thi there"]);
    expect(run.agent.tools.schemas()).toEqual([]);
  });

  test("tools registers only the named subset", async () => {
    const root = await tempDir();
    const run = await runCalls(root, { tools: ["read", "ls"] }, []);
    expect(run.tools).toEqual(["ls", "read"]);
  });

  test("an explicit root overrides the session cwd", async () => {
    const root = await tempDir();
    const other = await tempDir("other");
    await put(other, "only-here.txt", "");
    const run = await runCalls(root, { root: other }, [{ name: "ls", arguments: {} }]);
    expect(run.texts).toEqual(["only-here.txt"]);
  });
});

describe("permission policy", () => {
  test("deny (the default) refuses write with a reason naming the --allow flag", async () => {
    const root = await tempDir();
    const run = await runCalls(root, {}, [write("a.txt")]);
    expect(run.results[0]).toMatchObject({ isError: true, error: "denied" });
    expect(run.texts[0]).toBe(
      "Tool call denied by policy: write is not permitted in this session (permission mode: deny). The user can allow it by running with --allow write (e.g. --allow write,edit,bash).",
    );
    await expect(readFile(join(root, "a.txt"))).rejects.toThrow(/ENOENT/);
  });

  test("deny with a per-tool allow runs that tool only", async () => {
    const root = await tempDir();
    const run = await runCalls(root, { permissions: { mode: "deny", allow: new Set(["write"]) } }, [
      write("a.txt", "ok"),
      bash("echo hi"),
    ]);
    expect(run.results.map((r) => r.isError)).toEqual([false, true]);
    expect(run.texts[1]).toMatch(/--allow bash/);
    expect(await readFile(join(root, "a.txt"), "utf8")).toBe("ok");
  });

  test("allow runs mutating tools without asking", async () => {
    const root = await tempDir();
    const run = await runCalls(root, { permissions: { mode: "allow" } }, [
      write("a.txt", "v1"),
      { name: "edit", arguments: { path: "a.txt", oldString: "v1", newString: "v2" } },
      bash("cat a.txt"),
    ]);
    expect(run.results.map((r) => r.isError)).toEqual([false, false, false]);
    expect(run.texts[2]).toBe("v2\n[exit code: 0]");
  });

  test("ask: yes runs the call once, with a summary naming the path", async () => {
    const root = await tempDir();
    const a = asker("yes", "no");
    const run = await runCalls(root, { permissions: { mode: "ask", ask: a.ask } }, [
      write("a.txt", "hello"),
      write("b.txt"),
    ]);
    expect(a.asked).toEqual([
      { tool: "write", summary: "a.txt (5 characters)" },
      { tool: "write", summary: "b.txt (1 characters)" },
    ]);
    expect(run.results.map((r) => r.isError)).toEqual([false, true]);
  });

  test("ask: no denies with the user's refusal as the reason", async () => {
    const root = await tempDir();
    const a = asker("no");
    const run = await runCalls(root, { permissions: { mode: "ask", ask: a.ask } }, [bash("rm -rf build")]);
    expect(a.asked).toEqual([{ tool: "bash", summary: "rm -rf build" }]);
    expect(run.results[0]).toMatchObject({ isError: true, error: "denied" });
    expect(run.texts[0]).toBe("Tool call denied by user: the user declined to let bash run this time");
  });

  test("ask: always stops asking for that tool, but not for others", async () => {
    const root = await tempDir();
    const a = asker("always", "yes");
    const run = await runCalls(root, { permissions: { mode: "ask", ask: a.ask } }, [
      write("a.txt"),
      write("b.txt"),
      write("c.txt"),
      bash("true"),
    ]);
    expect(a.asked.map((r) => r.tool)).toEqual(["write", "bash"]);
    expect(run.results.map((r) => r.isError)).toEqual([false, false, false, false]);
  });

  test("ask without an ask function pauses the turn for agent.decide; a throwing ask denies", async () => {
    const root = await tempDir();
    const provider = new ScriptedProvider([{ toolCalls: [write("a.txt", "later")] }], { fallback: { text: "done" } });
    const agent = createAgent({
      provider,
      model: "scripted:test",
      cwd: root,
      plugins: [builtinTools({ permissions: { mode: "ask" } })],
      clock: fixedClock(),
    });
    expect((await agent.send("go")).reason).toEqual({ kind: "awaiting-approval" });
    const [pending] = agent.pendingApprovals();
    expect(pending).toMatchObject({
      tool: "write",
      reason: "write needs the user's permission (permission mode: ask)",
    });
    await expect(readFile(join(root, "a.txt"))).rejects.toThrow(/ENOENT/);
    expect((await agent.decide(pending!.callId, { approve: true, by: "ops" })).reason).toEqual({ kind: "completed" });
    expect(await readFile(join(root, "a.txt"), "utf8")).toBe("later");
    await agent.dispose();
    const throwing = await runCalls(
      root,
      { permissions: { mode: "ask", ask: () => Promise.reject(new Error("tty closed")) } },
      [write("a.txt")],
    );
    expect(throwing.texts[0]).toBe(
      "Tool call denied by policy: asking the user for permission to run write failed: tty closed",
    );
  });

  test("read-only tools are never asked about, in ask or deny mode", async () => {
    const root = await tempDir();
    await put(root, "f.txt", "needle\n");
    const readOnly: ScriptedToolCall[] = [
      { name: "read", arguments: { path: "f.txt" } },
      { name: "ls", arguments: {} },
      { name: "glob", arguments: { pattern: "*" } },
      { name: "grep", arguments: { pattern: "needle" } },
    ];
    const a = asker();
    const asked = await runCalls(root, { permissions: { mode: "ask", ask: a.ask } }, readOnly);
    expect(a.asked).toEqual([]);
    expect(asked.results.map((r) => r.isError)).toEqual([false, false, false, false]);
    const denied = await runCalls(root, { permissions: { mode: "deny" } }, readOnly);
    expect(denied.results.map((r) => r.isError)).toEqual([false, false, false, false]);
  });

  test("only the built-in tools it loaded are gated: a user's own bash tool is not", async () => {
    const root = await tempDir();
    const ownBash = defineTool({
      name: "bash",
      description: "the user's bash",
      input: z.object({ command: z.string() }),
      execute: () => "ran my bash",
    });
    const run = await runCalls(root, { tools: ["read"] }, [bash("true")], [ownBash]);
    expect(run.results[0]).toMatchObject({ isError: false });
    expect(run.texts[0]).toBe("ran my bash");
  });
});
