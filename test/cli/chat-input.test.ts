// Chat's line queue over a real readline interface on a PassThrough (piped, not a terminal):
// buffering in order, the echoed transcript, interrupt, end of input and close.
import { once } from "node:events";
import { createInterface, type Interface } from "node:readline";
import { PassThrough } from "node:stream";
import { describe, expect, test } from "vitest";
import { ChatInput } from "../../src/cli/chat-input.js";

interface Rig {
  readonly stdin: PassThrough;
  readonly rl: Interface;
  readonly input: ChatInput;
  readonly echoed: string[];
}

function rig(): Rig {
  const stdin = new PassThrough();
  const rl = createInterface({ input: stdin, terminal: false });
  const echoed: string[] = [];
  const input = new ChatInput(rl, { write: (t: string) => echoed.push(t) }, false);
  return { stdin, rl, input, echoed };
}

/** Lets the stream deliver what was written and readline emit its lines. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Whether `promise` has settled by now (without waiting for it). */
async function isSettled(promise: Promise<unknown>): Promise<boolean> {
  const marker = Symbol("pending");
  return (await Promise.race([promise, settle().then(() => marker)])) !== marker;
}

describe("ChatInput (piped)", () => {
  test("lines that arrive before anyone asks are kept, and read in order", async () => {
    const { stdin, input, echoed } = rig();
    stdin.write("first\nsecond\n");
    stdin.write("third\n");
    await settle();
    expect(echoed).toEqual([]); // nothing is echoed until a line is read
    expect(await input.next("› ")).toBe("first");
    expect(await input.next("› ")).toBe("second");
    expect(await input.next("? ")).toBe("third");
    expect(input.closed).toBe(false);
    input.close();
  });

  test("echoes the prompt and the line read, for buffered and awaited lines alike", async () => {
    const { stdin, input, echoed } = rig();
    stdin.write("buffered\n");
    await settle();
    expect(await input.next("› ")).toBe("buffered");
    const pending = input.next("  allow write: a.txt? ");
    expect(await isSettled(pending)).toBe(false);
    stdin.write("y\n");
    expect(await pending).toBe("y");
    expect(echoed).toEqual(["› buffered\n", "  allow write: a.txt? y\n"]);
    input.close();
  });

  test("interrupt() ends a pending next with undefined; later lines are still read", async () => {
    const { stdin, input, echoed } = rig();
    const pending = input.next("› ");
    input.interrupt();
    expect(await pending).toBeUndefined();
    expect(input.closed).toBe(false);
    stdin.write("after\n");
    await settle();
    expect(await input.next("› ")).toBe("after");
    expect(echoed).toEqual(["› after\n"]); // the interrupted prompt echoes nothing
    input.interrupt(); // nobody waiting: a no-op
    stdin.write("more\n");
    expect(await input.next("› ")).toBe("more");
    input.close();
  });

  test("end of input: the buffered lines first, then undefined (also for a pending next)", async () => {
    const { stdin, rl, input } = rig();
    const closed = once(rl, "close");
    stdin.end("one\ntwo\nlast without newline");
    await closed;
    expect(input.closed).toBe(false); // lines are still buffered
    expect(await input.next("› ")).toBe("one");
    expect(await input.next("› ")).toBe("two");
    expect(await input.next("› ")).toBe("last without newline");
    expect(input.closed).toBe(true);
    expect(await input.next("› ")).toBeUndefined();
    expect(await input.next("› ")).toBeUndefined();
  });

  test("end of input while a next is pending resolves it with undefined", async () => {
    const { stdin, input } = rig();
    const pending = input.next("› ");
    stdin.end();
    expect(await pending).toBeUndefined();
    expect(input.closed).toBe(true);
  });

  test("close() drops buffered lines, ends a pending next, closes readline, and is idempotent", async () => {
    const { stdin, rl, input, echoed } = rig();
    stdin.write("dropped 1\ndropped 2\n");
    await settle();
    let rlClosed = false;
    rl.on("close", () => {
      rlClosed = true;
    });
    input.close();
    expect(rlClosed).toBe(true);
    expect(input.closed).toBe(true);
    expect(await input.next("› ")).toBeUndefined();
    input.close();
    stdin.write("too late\n");
    await settle();
    expect(await input.next("› ")).toBeUndefined();
    expect(echoed).toEqual([]);

    const other = rig();
    const pending = other.input.next("› ");
    other.input.close();
    expect(await pending).toBeUndefined();
  });
});
