// bash's safety (issue #12, T9 and S1): a non-login shell that sources no profile, rc or BASH_ENV
// file; a stop (abort, timeout) that sends SIGTERM to the command's process group first — so its
// traps run — and SIGKILL only to that group, only after the grace; an environment without the
// parent's secrets. Every command syncs with the test through a fifo it writes once its trap and
// its background child are in place, so no test waits on a clock; the grace in the SIGKILL test is
// short only to keep it fast, and the result is asserted, never the time taken.
import { execFileSync } from "node:child_process";
import { closeSync, constants, existsSync, openSync, readdirSync, readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { ScriptedProvider } from "../../src/llm/index.js";
import { createAgent } from "../../src/loop/index.js";
import { bashArguments, bashTool, type BashToolOptions } from "../../src/builtin-tools/bash.js";
import { builtinTools, Workspace } from "../../src/builtin-tools/index.js";
import { isSecretName, toolEnvironment } from "../../src/builtin-tools/tool-env.js";
import type { ToolOutput } from "../../src/tools/index.js";
import { fixedClock } from "../support/builders.js";
import { put, tempDir } from "./support.js";

/**
 * Not running: gone (`process.kill(pid, 0)` throws ESRCH), or a zombie. An orphan killed here is
 * reparented to pid 1, and a container's pid 1 may never reap it, so a dead child can linger as
 * a zombie that `kill(pid, 0)` still reaches — /proc tells the two apart.
 */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    expect((error as NodeJS.ErrnoException).code).toBe("ESRCH");
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

/** Members of process group `pgid` that are still running (Linux: from /proc; elsewhere: []). */
function liveGroupMembers(pgid: number): number[] {
  if (!existsSync("/proc")) return [];
  const live: number[] = [];
  for (const name of readdirSync("/proc").filter((n) => /^\d+$/.test(n))) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, "utf8");
    } catch {
      continue;
    }
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(pgrp) === pgid && state !== "Z" && state !== "X") live.push(Number(name));
  }
  return live;
}

/** A bash tool over a fresh temp workspace (unsandboxed: these tests are about bash), run directly with our own abort controller. */
async function bashRig(options: Omit<BashToolOptions, "workspace"> = {}) {
  const root = await tempDir("bash");
  const tool = bashTool({ workspace: new Workspace({ root }), sandbox: "off", ...options });
  const controller = new AbortController();
  const run = (command: string, timeoutMs?: number): Promise<ToolOutput> =>
    Promise.resolve(
      tool.execute(
        { command, ...(timeoutMs === undefined ? {} : { timeoutMs }) },
        { callId: "c", sessionId: "s", signal: controller.signal },
      ),
    );
  return { root, tool, controller, run };
}

const resultOf = (output: ToolOutput) => {
  if (typeof output === "string") throw new Error(`expected a structured result, got ${output}`);
  return {
    text: output.content.map((p) => (p.type === "text" ? p.text : "")).join(""),
    isError: output.isError,
    meta: output.meta,
  };
};

/**
 * Runs `command` (which must end by writing "$$ $!" — its group and its background child — to
 * `ready.fifo`), waits for that line, and returns the two pids with the pending result.
 */
async function started(rig: Awaited<ReturnType<typeof bashRig>>, command: string, timeoutMs?: number) {
  const fifo = join(rig.root, "ready.fifo");
  execFileSync("mkfifo", [fifo]);
  const result = rig.run(command, timeoutMs);
  const read = readFile(fifo, "utf8");
  const first = await Promise.race([read, result.then(() => undefined)]);
  if (first === undefined) {
    closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
    await read;
    throw new Error(`the command ended before it reported ready: ${resultOf(await result).text}`);
  }
  const [group, child] = first.trim().split(" ").map(Number) as [number, number];
  return { group, child, result };
}

describe("bash runs a non-login shell with no start-up files", () => {
  test("the shell is not a login shell", async () => {
    const rig = await bashRig();
    expect(resultOf(await rig.run("shopt -q login_shell; echo $?")).text).toBe("1\n\n[exit code: 0]");
  });

  test("no profile, rc or BASH_ENV file is sourced", async () => {
    const home = await tempDir("bash-home");
    const marker = (name: string) => `touch '${join(home, `${name}-ran`)}'\n`;
    for (const file of [".bash_profile", ".bash_login", ".profile", ".bashrc", "bash-env.sh"])
      await put(home, file, marker(file));
    const rig = await bashRig({
      baseEnv: { PATH: process.env.PATH, HOME: home, BASH_ENV: join(home, "bash-env.sh"), ENV: join(home, ".profile") },
    });
    expect(resultOf(await rig.run("echo $HOME; [ -v BASH_ENV ] || echo BASH_ENV=unset")).text).toBe(
      `${home}\nBASH_ENV=unset\n\n[exit code: 0]`,
    );
    expect(readdirSync(home).filter((name) => name.endsWith("-ran"))).toEqual([]);
  });

  test("the argv is bash --noprofile --norc -c by default, bash -lc only when a login shell is asked for", () => {
    expect(bashArguments("ls")).toEqual(["--noprofile", "--norc", "-c", "ls"]);
    expect(bashArguments("ls", true)).toEqual(["-l", "-c", "ls"]);
  });

  test("the tool and schema descriptions name the real invocation", async () => {
    const { tool } = await bashRig();
    expect(tool.description).toContain("bash --noprofile --norc -c");
    expect(JSON.stringify(tool.input)).toContain("run with bash --noprofile --norc -c in the workspace root");
    expect(JSON.stringify(tool)).not.toContain("bash -lc");
  });
});

describe("bash stops with SIGTERM first, then SIGKILL after the grace, only its own group", () => {
  test("an abort sends SIGTERM: the command's trap runs, and its group and background child are gone", async () => {
    const rig = await bashRig();
    const run = await started(rig, "trap 'echo cleaned > cleaned.txt' TERM; sleep 30 & echo $$ $! > ready.fifo; wait");
    expect(running(run.child)).toBe(true);
    rig.controller.abort(new Error("user cancelled"));
    const outcome = resultOf(await run.result);
    expect(outcome.isError).toBe(true);
    expect(outcome.meta).toMatchObject({ stopped: "aborted" });
    expect(outcome.text).toMatch(/\[command aborted and killed\]$/);
    expect(readFileSync(join(rig.root, "cleaned.txt"), "utf8")).toBe("cleaned\n");
    expect(running(run.child)).toBe(false);
    expect(liveGroupMembers(run.group)).toEqual([]);
  });

  test("a command that ignores SIGTERM is killed with SIGKILL after the grace", async () => {
    const rig = await bashRig({ killGraceMs: 100 });
    const run = await started(rig, "trap '' TERM; sleep 30 & echo $$ $! > ready.fifo; wait");
    rig.controller.abort();
    const outcome = resultOf(await run.result);
    expect(outcome.meta).toEqual({ exitCode: null, stopped: "aborted" });
    expect(outcome.text).toMatch(/\[command aborted and killed \(SIGKILL: still running 100 ms after SIGTERM\)\]$/);
    expect(running(run.child)).toBe(false);
    expect(liveGroupMembers(run.group)).toEqual([]);
  });

  test("a timeout stops the group the same way: trap run, background child gone", async () => {
    const rig = await bashRig();
    // The timeout only has to outlast the few commands before the fifo write; it is asserted as text only.
    const run = await started(
      rig,
      "trap 'echo cleaned > cleaned.txt' TERM; sleep 30 & echo $$ $! > ready.fifo; wait",
      1500,
    );
    const outcome = resultOf(await run.result);
    expect(outcome.meta).toMatchObject({ stopped: "timeout" });
    expect(outcome.text).toMatch(/\[command timed out after 1500 ms and was killed\]$/);
    expect(existsSync(join(rig.root, "cleaned.txt"))).toBe(true);
    expect(running(run.child)).toBe(false);
    expect(liveGroupMembers(run.group)).toEqual([]);
  });

  test("a process outside the command's group is never signalled", async () => {
    const rig = await bashRig({ killGraceMs: 100 });
    const outsider = execFileSync("bash", ["--noprofile", "--norc", "-c", "sleep 30 >/dev/null 2>&1 & echo $!"], {
      encoding: "utf8",
    });
    const pid = Number(outsider.trim());
    try {
      const run = await started(rig, "trap '' TERM; sleep 30 & echo $$ $! > ready.fifo; wait");
      rig.controller.abort();
      await run.result;
      expect(running(pid)).toBe(true);
    } finally {
      process.kill(pid, "SIGTERM");
    }
  });

  test("killGraceMs must be a non-negative integer", async () => {
    const workspace = new Workspace({ root: await tempDir("bash") });
    expect(() => bashTool({ workspace, killGraceMs: -1 })).toThrow(
      /killGraceMs must be a non-negative integer, got -1/,
    );
    expect(() => builtinTools({ killGraceMs: 1.5 })).toThrow(/got 1.5/);
  });
});

describe("bash's environment has no secrets", () => {
  const FAKE = {
    FAKE_SERVICE_API_KEY: "fake-key-value-1",
    OPENAI_API_KEY: "fake-openai-value-2",
    ANTHROPIC_API_KEY: "fake-anthropic-value-3",
    deploy_token: "fake-token-value-4",
    DB_PASSWORD: "fake-password-value-5",
    CLIENT_SECRET: "fake-secret-value-6",
  };

  test("`env` prints none of the parent's secret values, and keeps the rest", async () => {
    const rig = await bashRig({
      baseEnv: { ...process.env, ...FAKE, ANTHROPIC_BASE_URL: "http://localhost:1", KEELSON_HOME: "/tmp/kh" },
    });
    const { text } = resultOf(await rig.run("env"));
    for (const value of Object.values(FAKE)) expect(text).not.toContain(value);
    expect(text).toContain("ANTHROPIC_BASE_URL=http://localhost:1\n");
    expect(text).toContain("KEELSON_HOME=/tmp/kh\n");
    expect(text).toContain(`PATH=${process.env.PATH}\n`);
  });

  test("allow keeps a named variable, set adds one", async () => {
    const rig = await bashRig({
      baseEnv: { PATH: process.env.PATH, ...FAKE },
      env: { allow: ["deploy_token"], set: { EXTRA: "given" } },
    });
    const { text } = resultOf(await rig.run("env"));
    expect(text).toContain("deploy_token=fake-token-value-4\n");
    expect(text).toContain("EXTRA=given\n");
    expect(text).not.toContain("fake-openai-value-2");
  });

  test("the plugin passes env, loginShell and killGraceMs through to bash", async () => {
    const root = await tempDir("bash-plugin");
    const provider = new ScriptedProvider(
      [{ toolCalls: [{ name: "bash", arguments: { command: "echo $PASSED; shopt -q login_shell; echo $?" } }] }],
      { fallback: { text: "done" } },
    );
    const agent = createAgent({
      provider,
      model: "scripted:test",
      cwd: root,
      plugins: [
        builtinTools({
          permissions: { mode: "allow" },
          env: { set: { PASSED: "through" } },
          killGraceMs: 10,
          sandbox: "off",
        }),
      ],
      clock: fixedClock(),
    });
    await agent.send("go");
    const result = agent.session.events.find((e) => e.type === "tool/result")!.data as unknown as {
      content: { text: string }[];
    };
    await agent.dispose();
    expect(result.content[0]!.text).toBe("through\n1\n\n[exit code: 0]");
  });
});

describe("toolEnvironment (pure)", () => {
  test("drops *_API_KEY, *_TOKEN, *_SECRET, *_PASSWORD and the like, case-insensitively", () => {
    for (const name of [
      "OPENAI_API_KEY",
      "ANTHROPIC_API_KEY",
      "DEEPSEEK_API_KEY",
      "ANTHROPIC_AUTH_TOKEN",
      "my_api_key",
      "Github_Token",
      "NPM_TOKEN",
      "CLIENT_SECRET",
      "AWS_SECRET_ACCESS_KEY",
      "AWS_SESSION_TOKEN",
      "DB_PASSWORD",
      "PGPASSWORD",
      "SMTP_PASSWD",
      "API_KEY",
      "SSH_PRIVATE_KEY",
    ])
      expect(isSecretName(name), name).toBe(true);
  });

  test("keeps base URLs, KEELSON_*, PATH, HOME and names that only contain a secret word", () => {
    for (const name of [
      "ANTHROPIC_BASE_URL",
      "OPENAI_BASE_URL",
      "KEELSON_HOME",
      "KEELSON_MODEL",
      "PATH",
      "HOME",
      "SSH_AUTH_SOCK",
      "TOKENIZERS_PARALLELISM",
      "AWS_ACCESS_KEY_ID",
      "PASSWORD_STORE_DIR",
    ])
      expect(isSecretName(name), name).toBe(false);
  });

  test("allow keeps a secret-looking name, set goes on top, undefined values are left out, the input is untouched", () => {
    const env = Object.freeze({ A_TOKEN: "t", B_TOKEN: "u", PATH: "/bin", GONE: undefined, OVER: "old" });
    expect(toolEnvironment(env, { allow: ["A_TOKEN"], set: { OVER: "new", B_TOKEN: "given" } })).toEqual({
      A_TOKEN: "t",
      B_TOKEN: "given",
      PATH: "/bin",
      OVER: "new",
    });
    expect(env).toEqual({ A_TOKEN: "t", B_TOKEN: "u", PATH: "/bin", GONE: undefined, OVER: "old" });
  });
});
