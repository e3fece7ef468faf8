// Issue #12 (CLI): `run -` (and `resume <id> -`) read the prompt from stdin, to the end of input,
// with one trailing newline dropped; an empty stdin is bad input (exit 2) and writes nothing.
import { readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, cleanEnv, type Result, sessionIdOf, spawn, tempHome } from "./run-keelson.js";

let home: string;

beforeAll(async () => {
  home = await tempHome();
});
afterAll(() => rm(home, { recursive: true, force: true }));

/** Runs keelson with `input` written to its stdin, then stdin closed. */
function keelsonWithStdin(args: readonly string[], input: string): Promise<Result> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: cleanEnv(home), cwd: home });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    child.on("error", fail);
    child.on("close", (code) => done({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(input);
  });
}

describe("the prompt from stdin", () => {
  it("run - sends stdin as the prompt (one trailing newline dropped) and stores it", async () => {
    const r = await keelsonWithStdin(["run", "-"], "hello from stdin\n");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("Understood: hello from stdin\n");
    const show = await keelsonWithStdin(["show", sessionIdOf(r)], "");
    expect(show.stdout).toContain("user: hello from stdin\n");
  }, 60_000);

  it("run - keeps a multi-line prompt whole", async () => {
    const r = await keelsonWithStdin(["run", "--json", "-"], "line one\nline two\n\n");
    expect(r.code).toBe(0);
    const user = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { type: string; data: { content?: { text: string }[] } })
      .find((e) => e.type === "user/message");
    expect(user?.data.content?.[0]?.text).toBe("line one\nline two\n");
  }, 60_000);

  it("resume <id> - reads the next prompt from stdin", async () => {
    const id = sessionIdOf(await keelsonWithStdin(["run", "first"], ""));
    const r = await keelsonWithStdin(["resume", id, "-"], "second, from stdin");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("Understood: second, from stdin\n");
  }, 60_000);

  it("run - with an empty or blank stdin exits 2 with one line, and stores nothing", async () => {
    const before = await readdir(join(home, "sessions")).catch(() => []);
    for (const input of ["", "\n", "  \n\t\n"]) {
      const r = await keelsonWithStdin(["run", "-"], input);
      expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({
        code: 2,
        stdout: "",
        stderr: "keelson: no prompt: the prompt was read from stdin (-) and it is empty\n",
      });
    }
    expect(await readdir(join(home, "sessions")).catch(() => [])).toEqual(before);
  }, 60_000);

  it("run with an empty or blank prompt argument exits 2 with one line, and stores nothing", async () => {
    const before = await readdir(join(home, "sessions")).catch(() => []);
    for (const prompt of ["", "   ", "\n\t"]) {
      const r = await keelsonWithStdin(["run", prompt], "");
      expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({
        code: 2,
        stdout: "",
        stderr: "keelson: no prompt: the prompt argument is empty\n",
      });
    }
    expect(await readdir(join(home, "sessions")).catch(() => [])).toEqual(before);
  }, 60_000);
});
