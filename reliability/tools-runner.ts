// The tools suite's handle on its child (tools-child.ts): sends one call at a time and waits
// for the answer line — with a watchdog, because the property under test is "nothing hangs":
// a child that has not answered after WATCHDOG_MS is SIGKILLed (it runs only the tools, never a
// shell that could hold shared state) and the call is reported as hung; the next call starts a
// fresh child. A child that dies on its own is reported the same way, with its stderr.
import { fileURLToPath } from "node:url";
import { compiledScript } from "./fixtures/compiled-script.js";
import { WriterChild } from "./fixtures/writer-child.js";
import { type ToolAnswer, type ToolRequest, WATCHDOG_MS } from "./tools-protocol.js";

const childScript = fileURLToPath(new URL("./tools-child.ts", import.meta.url));

/** An answer, or why there is none. */
export type CallResult =
  | { readonly kind: "answer"; readonly answer: ToolAnswer }
  | { readonly kind: "hung"; readonly ms: number }
  | { readonly kind: "died"; readonly detail: string };

export class ToolRunner {
  readonly #args: readonly string[];
  #child: WriterChild | undefined;
  #nextId = 0;
  /** Children started (1 + restarts after a hang or a death). */
  started = 0;

  /** `root`: the workspace; `allow`: extra roots the workspace may resolve into. */
  constructor(root: string, allow: readonly string[]) {
    this.#args = [root, ...allow];
  }

  /** `grepDeadlineMs`: grep's deadline for this call (the child's default when absent). */
  async call(tool: string, args: Readonly<Record<string, unknown>>, grepDeadlineMs?: number): Promise<CallResult> {
    const child = await this.#ready();
    const id = this.#nextId++;
    const request: ToolRequest = { id, tool, args, ...(grepDeadlineMs === undefined ? {} : { grepDeadlineMs }) };
    child.send(JSON.stringify(request));
    const sent = performance.now();
    for (;;) {
      const line = await withinWatchdog(child.next());
      if (line === TIMED_OUT) {
        await this.#discard();
        return { kind: "hung", ms: performance.now() - sent };
      }
      if (line === undefined) {
        const detail = `the tools child died (${child.process.signalCode ?? `exit ${child.process.exitCode}`}); stderr: ${child.stderr.slice(-2000)}`;
        this.#child = undefined;
        return { kind: "died", detail };
      }
      if (!line.startsWith("answer ")) continue;
      const answer = JSON.parse(line.slice("answer ".length)) as ToolAnswer;
      if (answer.id === id) return { kind: "answer", answer };
    }
  }

  /** Closes the child's stdin and waits for it to leave (killing it if it does not). */
  async close(): Promise<void> {
    const child = this.#child;
    this.#child = undefined;
    if (child === undefined) return;
    child.endInput();
    if ((await withinWatchdog(child.exited)) === TIMED_OUT) await child.kill();
  }

  async #ready(): Promise<WriterChild> {
    if (this.#child !== undefined) return this.#child;
    const child = new WriterChild(await compiledScript(childScript), this.#args);
    this.started += 1;
    this.#child = child;
    // Start-up loads the tools: bounded by the watchdog like a call.
    const ready = await withinWatchdog(child.waitFor((line) => line === "ready", '"ready"'));
    if (ready === TIMED_OUT) {
      await this.#discard();
      throw new Error(`the tools child did not start within ${WATCHDOG_MS} ms`);
    }
    return child;
  }

  async #discard(): Promise<void> {
    const child = this.#child;
    this.#child = undefined;
    await child?.kill();
  }
}

const TIMED_OUT = Symbol("timed out");

/** `promise`, or TIMED_OUT after WATCHDOG_MS (the timer never outlives the race). */
async function withinWatchdog<T>(promise: Promise<T>): Promise<T | typeof TIMED_OUT> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<typeof TIMED_OUT>((resolve) => {
        timer = setTimeout(resolve, WATCHDOG_MS, TIMED_OUT);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
