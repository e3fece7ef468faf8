// Drives `keelson chat` as a subprocess over piped stdin: write lines, send SIGINT, and wait for
// output to appear — never for time to pass. Output is matched as it arrives; `waitFor` fails
// with the transcript so far if the process exits before the pattern shows up.
import { type ChildProcessByStdio, spawn, spawnSync } from "node:child_process";
import type { Readable, Writable } from "node:stream";
import { BIN, cleanEnv } from "./run-keelson.js";

export class ChatProcess {
  readonly child: ChildProcessByStdio<Writable, Readable, Readable>;
  stdout = "";
  stderr = "";
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  #listeners: (() => void)[] = [];
  #done = false;

  readonly #eol: string;

  /**
   * With `tty`, the chat runs on a pseudo-terminal (util-linux `script`): stdin and stdout are a
   * terminal, lines end with CR, and Ctrl-C is the byte 0x03 typed into it — the path a person
   * takes. Check `hasPty()` first.
   */
  constructor(
    home: string,
    args: readonly string[],
    options: { cwd?: string; env?: Record<string, string>; tty?: boolean } = {},
  ) {
    const argv = [BIN, "chat", ...args];
    const [file, fileArgs] =
      options.tty === true
        ? ["script", ["-qfec", [process.execPath, ...argv].map(shellQuote).join(" "), "/dev/null"]]
        : [process.execPath, argv];
    this.#eol = options.tty === true ? "\r" : "\n";
    this.child = spawn(file, fileArgs, {
      env: cleanEnv(home, options.env),
      cwd: options.cwd ?? home,
      stdio: ["pipe", "pipe", "pipe"],
    });
    this.child.stdout.setEncoding("utf8").on("data", (text: string) => {
      this.stdout += text;
      this.#notify();
    });
    this.child.stderr.setEncoding("utf8").on("data", (text: string) => {
      this.stderr += text;
    });
    this.exited = new Promise((resolve) => {
      this.child.on("exit", (code, signal) => {
        this.#done = true;
        this.#notify();
        resolve({ code, signal });
      });
    });
  }

  /** Resolves with the first match of `pattern` in stdout after offset `from`. */
  waitFor(pattern: RegExp, from = 0): Promise<RegExpExecArray> {
    return new Promise((resolve, reject) => {
      const check = (): boolean => {
        const match = pattern.exec(this.stdout.slice(from));
        if (match !== null) resolve(match);
        else if (this.#done)
          reject(new Error(`chat exited before ${pattern}:\n--- stdout\n${this.stdout}\n--- stderr\n${this.stderr}`));
        else return false;
        return true;
      };
      if (check()) return;
      const listener = (): void => {
        if (check()) this.#listeners = this.#listeners.filter((l) => l !== listener);
      };
      this.#listeners.push(listener);
    });
  }

  send(line: string): void {
    this.child.stdin.write(`${line}${this.#eol}`);
  }

  /** Types Ctrl-C into the terminal (tty mode). */
  typeCtrlC(): void {
    this.child.stdin.write("\x03");
  }

  /** Closes stdin (end of input). */
  end(): void {
    this.child.stdin.end();
  }

  interrupt(): void {
    this.child.kill("SIGINT");
  }

  #notify(): void {
    for (const listener of [...this.#listeners]) listener();
  }
}

/** True when util-linux `script` can give the chat a pseudo-terminal. */
export function hasPty(): boolean {
  return spawnSync("script", ["-qfec", "true", "/dev/null"], { stdio: "ignore" }).status === 0;
}

function shellQuote(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}

/** Runs a whole piped script (stdin closed after the last line) and waits for the exit. */
export async function chatScript(
  home: string,
  args: readonly string[],
  lines: readonly string[],
  options: { cwd?: string } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const chat = new ChatProcess(home, args, options);
  for (const line of lines) chat.send(line);
  chat.end();
  const { code } = await chat.exited;
  return { code, stdout: chat.stdout, stderr: chat.stderr };
}
