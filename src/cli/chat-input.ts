// Chat's line input: one queue over a readline interface, read by the REPL (the next prompt or
// slash command) and by permission questions asked while a turn runs. Lines that arrive while
// nobody is waiting are kept in order, so piped input is consumed exactly as written. On a
// terminal, readline shows the prompt and echoes typing; on piped input the prompt and the line
// read are echoed to the output so the transcript reads the same (escaped for the terminal:
// piped input may be a file with escape sequences in it).
import type { Interface } from "node:readline";
import { terminalLine } from "./terminal-text.js";

export interface ChatInputOutput {
  write(text: string): unknown;
}

export class ChatInput {
  readonly #rl: Interface;
  readonly #out: ChatInputOutput;
  readonly #interactive: boolean;
  readonly #buffered: string[] = [];
  #waiter: ((line: string | undefined) => void) | undefined;
  #closed = false;

  constructor(rl: Interface, out: ChatInputOutput, interactive: boolean) {
    this.#rl = rl;
    this.#out = out;
    this.#interactive = interactive;
    rl.on("line", (line) => {
      const waiter = this.#waiter;
      this.#waiter = undefined;
      if (waiter === undefined) this.#buffered.push(line);
      else waiter(line);
    });
    rl.on("close", () => {
      this.#closed = true;
      this.interrupt();
    });
  }

  get closed(): boolean {
    return this.#closed && this.#buffered.length === 0;
  }

  /** The next line, after showing `prompt`; undefined at end of input or when interrupted. */
  next(prompt: string): Promise<string | undefined> {
    const buffered = this.#buffered.shift();
    if (buffered !== undefined) {
      if (!this.#interactive) this.#out.write(`${prompt}${terminalLine(buffered)}\n`);
      return Promise.resolve(buffered);
    }
    if (this.#closed) return Promise.resolve(undefined);
    if (this.#interactive) {
      this.#rl.setPrompt(prompt);
      this.#rl.prompt();
    }
    return new Promise((resolve) => {
      this.#waiter = (line) => {
        if (line !== undefined && !this.#interactive) this.#out.write(`${prompt}${terminalLine(line)}\n`);
        resolve(line);
      };
    });
  }

  /** Ends a pending `next` with undefined (Ctrl-C while asking); later lines are read normally. */
  interrupt(): void {
    const waiter = this.#waiter;
    this.#waiter = undefined;
    waiter?.(undefined);
  }

  /** Stops reading: pending and later `next` calls get undefined once the buffer is drained. */
  close(): void {
    this.#buffered.length = 0;
    if (!this.#closed) this.#rl.close();
    this.#closed = true;
    this.interrupt();
  }
}
