// `bash` in the sandbox: on by default (builtinTools, bashTool), its policy in the tool's
// description (so the logged header records it) and on each result's meta; where the sandbox
// cannot start it refuses and runs nothing, saying how to install bubblewrap or opt out; where
// it runs, stopping still goes SIGTERM first (the command's trap runs), then SIGKILL, and nothing
// the command started outlives it. The escapes themselves: test/reliability/sandbox.test.ts.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { bashTool, builtinTools, Workspace } from "../../src/builtin-tools/index.js";
import { ScriptedProvider } from "../../src/llm/index.js";
import { createAgent } from "../../src/loop/index.js";
import { INSTALL_BWRAP, type SandboxOptions, sandboxSupport } from "../../src/sandbox/index.js";
import type { ToolOutput } from "../../src/tools/index.js";
import { processesIn } from "../../reliability/sandbox-cases.js";
import { tempDir } from "../builtin-tools/support.js";
import { fixedClock } from "../support/builders.js";

const here = await sandboxSupport();
const MISSING = "/nonexistent/keelson-test/bwrap";
const NEEDS = "needs a working sandbox here (without one, the refusal tests cover bash)";

async function bashIn(sandbox: SandboxOptions | "off" = {}, killGraceMs = 2000) {
  const root = await tempDir("sandboxed");
  const tool = bashTool({ workspace: new Workspace({ root }), sandbox, killGraceMs });
  const controller = new AbortController();
  const run = async (command: string, timeoutMs?: number) =>
    outcome(
      await tool.execute(
        { command, ...(timeoutMs === undefined ? {} : { timeoutMs }) },
        { callId: "c", sessionId: "s", signal: controller.signal },
      ),
    );
  return { root, tool, controller, run };
}

function outcome(output: ToolOutput) {
  if (typeof output === "string") throw new Error(`expected a structured result, got ${output}`);
  return { text: output.content.map((p) => (p.type === "text" ? p.text : "")).join(""), ...output };
}

describe("the sandbox is on by default and logged", () => {
  test("builtinTools' bash carries the workspace-write policy in its description", async () => {
    const root = await tempDir("default");
    const agent = createAgent({
      provider: new ScriptedProvider([], { fallback: { text: "ok" } }),
      model: "scripted:test",
      cwd: root,
      plugins: [builtinTools()],
      clock: fixedClock(),
    });
    const bash = agent.tools.schemas().find((s) => s.name === "bash")!;
    expect(bash.description).toContain(
      `Sandboxed (workspace-write): commands may write only under ${root} (the workspace)`,
    );
    expect(bash.description).toContain("no network (not even 127.0.0.1)");
    await agent.send("hi");
    const header = agent.session.events.find((e) => e.type === "request/header")!.data as unknown as {
      header: { tools: { name: string; description: string }[] };
    };
    expect(header.header.tools.find((t) => t.name === "bash")!.description).toBe(bash.description);
    await agent.dispose();
  });

  test("off says so in the description, and results carry no sandbox mark", async () => {
    const { tool, run } = await bashIn("off");
    expect(tool.description).toContain("Not sandboxed: commands run with the user's full access");
    expect((await run("true")).meta).toEqual({ exitCode: 0 });
  });

  test("the workspace's extra roots are writable in workspace-write, readable in read-only", async () => {
    const root = await tempDir("roots");
    const extra = await tempDir("extra");
    const writeMode = bashTool({ workspace: new Workspace({ root, allow: [extra] }) });
    expect(writeMode.description).toContain(`only under ${root} (the workspace), ${extra} and`);
    const readMode = bashTool({ workspace: new Workspace({ root, allow: [extra] }), sandbox: "read-only" });
    expect(readMode.description).toContain(`shown read-only: ${extra}`);
  });

  test("a bad sandbox option fails at creation, naming the key", () => {
    expect(() => builtinTools({ sandbox: { network: "yes" as never } })).toThrow(
      /builtinTools sandbox\.network must be "on" or "off" \(got "yes"\)/,
    );
  });
});

describe("fail closed: where the sandbox cannot start, nothing runs", () => {
  test("a missing bwrap: the command is refused with how to install it or opt out", async () => {
    const { root, run } = await bashIn({ bwrap: MISSING });
    const result = await run(`touch ran; echo ran`);
    expect(result.isError).toBe(true);
    expect(result.meta).toEqual({ code: "sandbox-unavailable", sandbox: "workspace-write" });
    expect(result.text).toBe(
      `Command not run: the sandbox cannot start here: bubblewrap is not installed (no executable ${MISSING} found); ${INSTALL_BWRAP}. Or opt out explicitly and run commands unconfined: builtinTools({ sandbox: "off" }) in code, --sandbox off on the keelson command line.`,
    );
    expect(existsSync(join(root, "ran"))).toBe(false);
  });

  test("sandboxSupport says why and what to do", async () => {
    expect(await sandboxSupport(MISSING)).toEqual({
      ok: false,
      reason: `bubblewrap is not installed (no executable ${MISSING} found)`,
      fix: INSTALL_BWRAP,
    });
  });

  test("$KEELSON_BWRAP points the default at another binary", async () => {
    const previous = process.env.KEELSON_BWRAP;
    process.env.KEELSON_BWRAP = MISSING;
    try {
      const { run } = await bashIn();
      expect((await run("true")).meta).toMatchObject({ code: "sandbox-unavailable" });
    } finally {
      if (previous === undefined) delete process.env.KEELSON_BWRAP;
      else process.env.KEELSON_BWRAP = previous;
    }
  });
});

describe("bash inside the sandbox", () => {
  test.skipIf(!here.ok)(`runs in the workspace, reports the exit code, marks the result (${NEEDS})`, async () => {
    const { root, run } = await bashIn();
    expect(await run("pwd; echo out; echo err >&2; exit 3")).toMatchObject({
      text: `${root}\nout\nerr\n\n[exit code: 3]`,
      isError: true,
      meta: { exitCode: 3, sandbox: "workspace-write" },
    });
  });

  test.skipIf(!here.ok)(`an abort sends SIGTERM first: the trap runs, then everything is gone (${NEEDS})`, async () => {
    const { root, controller, run } = await bashIn();
    const pending = run(
      `readlink /proc/self/ns/pid > ns; trap 'echo trapped > trap.txt; exit 0' TERM; sleep 300 & touch ready; wait`,
    );
    while (!existsSync(join(root, "ready"))) await new Promise((r) => setTimeout(r, 20));
    const ns = readFileSync(join(root, "ns"), "utf8").trim();
    expect(processesIn(ns).length).toBeGreaterThan(0);
    controller.abort(new Error("user cancelled"));
    const result = await pending;
    expect(result.meta).toMatchObject({ stopped: "aborted", sandbox: "workspace-write" });
    expect(result.text).toMatch(/\[command aborted and killed\]$/);
    expect(readFileSync(join(root, "trap.txt"), "utf8")).toBe("trapped\n");
    expect(processesIn(ns)).toEqual([]);
  });

  test.skipIf(!here.ok)(`a command that ignores SIGTERM is killed after the grace (${NEEDS})`, async () => {
    const { run } = await bashIn({}, 200);
    const result = await run(`trap '' TERM; sleep 300`, 500);
    expect(result.meta).toMatchObject({ stopped: "timeout" });
    expect(result.text).toMatch(
      /\[command timed out after 500 ms and was killed \(SIGKILL: still running 200 ms after SIGTERM\)\]$/,
    );
  });

  test.skipIf(!here.ok)(`background processes end with the command (${NEEDS})`, async () => {
    const { root, run } = await bashIn();
    const result = await run(
      `readlink /proc/self/ns/pid > ns; (sleep 300 &); nohup sleep 300 >/dev/null 2>&1 & echo left`,
    );
    expect(result.text).toBe("left\n\n[exit code: 0]");
    expect(processesIn(readFileSync(join(root, "ns"), "utf8").trim())).toEqual([]);
  });
});
