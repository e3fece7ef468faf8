// The stdio transport of a spawned MCP server: newline-delimited JSON-RPC over the child's
// stdin/stdout, its stderr handed to the caller (never inherited: nothing is printed over a chat).
// Unlike the SDK's StdioClientTransport it
//   - survives an over-size answer: a line over `maxMessageBytes` is skipped as it streams (never
//     held whole) and, when it is a response whose id can be read from its first or last bytes,
//     the request gets an error `the answer was too large (N bytes > limit)` and the connection
//     stays; otherwise the transport reports the error and closes (the caller may reopen) and
//     reads nothing more the child writes (a late answer settles no call already failed);
//   - ends the child whatever it is doing: `close()` ends stdin, sends SIGTERM after `graceMs`,
//     SIGKILL after `termMs` more, and resolves only once the child has exited;
//   - runs the server in the sandbox when the server's config asks for one (src/sandbox): the
//     child is then bubblewrap, whose death ends every process of the server; a machine that
//     cannot sandbox refuses to start it (nothing runs).
import { type ChildProcess, spawn } from "node:child_process";
import { type SandboxPolicy, spawnSandboxed } from "../sandbox/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/** The SDK's limit for one stdio message (10 MiB). */
export const STDIO_MAX_MESSAGE_BYTES = 10 * 1024 * 1024;
/** JSON-RPC error code of the answer that replaces an over-size one. */
export const OVERSIZE_ERROR_CODE = -32_099;
/** Bytes of an over-size line kept at each end to find its id. */
const EDGE = 512;

export interface StdioTransportOptions {
  readonly command: string;
  readonly args: readonly string[];
  /** The child's whole environment. */
  readonly env: Readonly<Record<string, string>>;
  readonly cwd?: string;
  readonly maxMessageBytes?: number;
  readonly graceMs?: number;
  readonly termMs?: number;
  readonly parse: (line: string) => JSONRPCMessage;
  readonly serialize: (message: JSONRPCMessage) => string;
  readonly onStderr: (text: string) => void;
  /** Told about every over-size line (`answered`: a pending request got the error instead). */
  readonly onOversize?: (bytes: number, limit: number, answered: boolean) => void;
  /** The sandbox the server runs in; absent: it runs with the user's full access. */
  readonly sandbox?: SandboxPolicy;
}

export class StdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly #options: StdioTransportOptions;
  readonly #limit: number;
  #child: ChildProcess | undefined;
  #exited: Promise<void> | undefined;
  #closing: Promise<void> | undefined;
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  /** An over-size line being skipped: its size so far and its first and last bytes. */
  #skipping: { bytes: number; head: Buffer; tail: Buffer } | undefined;

  constructor(options: StdioTransportOptions) {
    this.#options = options;
    this.#limit = options.maxMessageBytes ?? STDIO_MAX_MESSAGE_BYTES;
  }

  get pid(): number | undefined {
    return this.#child?.pid;
  }

  async start(): Promise<void> {
    if (this.#closing !== undefined) throw new Error("the transport was closed before it started");
    if (this.#child !== undefined) throw new Error("the transport is already started");
    const sandbox = this.#options.sandbox;
    const sandboxed =
      sandbox === undefined || sandbox.mode === "off"
        ? undefined
        : await spawnSandboxed(sandbox, {
            argv: [this.#options.command, ...this.#options.args],
            env: this.#options.env,
            stdin: "pipe",
          });
    if (this.#child !== undefined) {
      sandboxed?.child.kill("SIGKILL");
      throw new Error("the transport is already started");
    }
    return new Promise((resolve, reject) => {
      const child =
        sandboxed?.child ??
        spawn(this.#options.command, [...this.#options.args], {
          env: { ...this.#options.env },
          stdio: ["pipe", "pipe", "pipe"],
          shell: false,
          ...(this.#options.cwd === undefined ? {} : { cwd: this.#options.cwd }),
        });
      this.#child = child;
      this.#exited = new Promise((done) => {
        child.once("exit", () => done());
        child.once("error", () => {
          if (child.pid === undefined) done(); // never started
        });
      });
      // bubblewrap was spawned before this promise existed: its 'spawn' event may be gone already.
      if (sandboxed !== undefined && child.pid !== undefined) resolve();
      else child.once("spawn", () => resolve());
      child.on("error", (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.once("close", () => this.onclose?.());
      child.stdin?.on("error", (error) => this.onerror?.(error));
      child.stdout?.on("data", (chunk: Buffer) => this.#read(chunk));
      child.stdout?.on("error", (error) => this.onerror?.(error));
      child.stderr?.on("data", (chunk: Buffer) => this.#options.onStderr(chunk.toString("utf8")));
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.#child?.stdin;
    if (stdin === undefined || stdin === null || this.#closing !== undefined || !stdin.writable)
      return Promise.reject(new Error("Not connected"));
    return new Promise((resolve) => {
      if (stdin.write(this.#options.serialize(message))) resolve();
      else stdin.once("drain", resolve);
    });
  }

  /** Ends the child (stdin closed, SIGTERM, SIGKILL); idempotent; resolves once it has exited. */
  close(): Promise<void> {
    this.#closing ??= this.#end();
    return this.#closing;
  }

  async #end(): Promise<void> {
    const child = this.#child;
    this.#pending = [];
    this.#skipping = undefined;
    if (child === undefined || this.#exited === undefined) return;
    const exited = this.#exited;
    if (child.exitCode !== null || child.signalCode !== null) return exited;
    const within = (ms: number): Promise<boolean> =>
      new Promise((resolve) => {
        const timer = setTimeout(() => resolve(false), ms);
        void exited.then(() => {
          clearTimeout(timer);
          resolve(true);
        });
      });
    try {
      child.stdin?.end();
    } catch {
      // already closed
    }
    if (await within(this.#options.graceMs ?? 1_000)) return;
    child.kill("SIGTERM");
    if (await within(this.#options.termMs ?? 2_000)) return;
    child.kill("SIGKILL");
    await exited;
  }

  #read(chunk: Buffer): void {
    // Closing (after an over-size line it could not attribute, or asked to): what the child still
    // writes is not read — a late answer must not settle a call the caller was told had failed.
    if (this.#closing !== undefined) return;
    let rest = chunk;
    while (rest.length > 0) {
      const newline = rest.indexOf(0x0a);
      const piece = newline === -1 ? rest : rest.subarray(0, newline);
      rest = newline === -1 ? Buffer.alloc(0) : rest.subarray(newline + 1);
      if (this.#skipping !== undefined) this.#skip(piece);
      else {
        this.#pending.push(piece);
        this.#pendingBytes += piece.length;
        if (this.#pendingBytes > this.#limit) {
          const all = Buffer.concat(this.#pending);
          this.#pending = [];
          this.#pendingBytes = 0;
          this.#skipping = { bytes: all.length, head: all.subarray(0, EDGE), tail: all.subarray(-EDGE) };
        }
      }
      if (newline === -1) break;
      if (this.#skipping !== undefined) this.#oversize(this.#skipping);
      else this.#line();
      if (this.#closing !== undefined) return;
    }
  }

  #skip(piece: Buffer): void {
    const skipping = this.#skipping!;
    skipping.bytes += piece.length;
    skipping.tail = Buffer.concat([skipping.tail, piece]).subarray(-EDGE);
  }

  #line(): void {
    const line = Buffer.concat(this.#pending).toString("utf8").replace(/\r$/, "");
    this.#pending = [];
    this.#pendingBytes = 0;
    if (line.trim() === "") return;
    let message: JSONRPCMessage;
    try {
      message = this.#options.parse(line);
    } catch (error) {
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    this.onmessage?.(message);
  }

  #oversize({ bytes, head, tail }: { bytes: number; head: Buffer; tail: Buffer }): void {
    this.#skipping = undefined;
    const id = responseId(head.toString("latin1"), tail.toString("latin1"));
    const text = `the answer was too large (${bytes} bytes > ${this.#limit}, the limit of one stdio message) and was dropped`;
    this.#options.onOversize?.(bytes, this.#limit, id !== undefined);
    if (id !== undefined) {
      this.onmessage?.({ jsonrpc: "2.0", id, error: { code: OVERSIZE_ERROR_CODE, message: text } });
      return;
    }
    this.onerror?.(new Error(text));
    void this.close();
  }
}

const ID = String.raw`(-?\d+|"(?:[^"\\]|\\.){0,200}")`;
/** A response starts with `{` and optional jsonrpc / id members, then `"result"` or `"error"`. */
const RESPONSE_HEAD = /^\s*\{\s*((?:"(?:jsonrpc|id)"\s*:\s*(?:"[^"]*"|-?\d+)\s*,\s*)*)"(?:result|error)"\s*:/;
const ID_IN_HEAD = new RegExp(String.raw`"id"\s*:\s*${ID}`);
const ID_AT_END = new RegExp(String.raw`"id"\s*:\s*${ID}\s*\}\s*$`);

/** The id of the response whose first and last bytes these are; undefined when it is not one. */
export function responseId(head: string, tail: string): string | number | undefined {
  const start = RESPONSE_HEAD.exec(head);
  if (start === null) return undefined;
  const found = ID_IN_HEAD.exec(start[1] ?? "") ?? ID_AT_END.exec(tail.replace(/\r$/, ""));
  if (found === null) return undefined;
  const raw = found[1]!;
  try {
    return JSON.parse(raw) as string | number;
  } catch {
    return undefined;
  }
}
