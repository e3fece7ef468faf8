// RegexSearch: grep's line matching, run off the main thread. A model-supplied regular expression
// can backtrack for hours on one short line (`^(a+)+$` against 41 `a`s and a `!`), and a regex
// match cannot be interrupted on the thread running it — on the main thread it would freeze the
// event loop, so neither Ctrl-C nor the tool timeout could act. Each search gets a fresh worker
// (grep-worker.ts; nothing is reused that could be left wedged), files are sent to it in order,
// and the worker is terminated when the signal aborts, when it fails, or when the search closes.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import type { GrepWorkerData, GrepWorkerReply, GrepWorkerRequest } from "./grep-worker.js";
import { ToolFailure } from "./types.js";

export interface RegexSearchOptions {
  /** Aborting it terminates the worker; every pending and later `search` rejects with its reason. */
  readonly signal: AbortSignal;
  /** Matching lines longer than this are cut, with `…` appended. */
  readonly maxLine: number;
  /** Texts are returned only for the first `maxMatches` matches across all files (all are counted). */
  readonly maxMatches: number;
}

export type FileMatches = Omit<GrepWorkerReply, "id">;

interface Pending {
  readonly label: string;
  readonly resolve: (matches: FileMatches) => void;
  readonly reject: (reason: unknown) => void;
}

/** Memory a worker may use: a runaway search fails alone instead of taking the process down. */
const RESOURCE_LIMITS = { maxOldGenerationSizeMb: 512 };

export class RegexSearch {
  readonly #data: GrepWorkerData;
  readonly #signal: AbortSignal;
  /** In the order sent: the worker answers in that order, so the first is the one it is on. */
  readonly #pending = new Map<number, Pending>();
  #worker: Worker | undefined;
  #failure: { reason: unknown } | undefined;
  #interrupted: string | undefined;
  #terminating: Promise<number> | undefined;
  #nextId = 0;
  readonly #onAbort = (): void => this.#stop(this.#signal.reason);

  constructor(regex: RegExp, options: RegexSearchOptions) {
    this.#data = {
      kind: "keelson-grep",
      source: regex.source,
      flags: regex.flags,
      maxLine: options.maxLine,
      maxMatches: options.maxMatches,
    };
    this.#signal = options.signal;
    this.#signal.addEventListener("abort", this.#onAbort, { once: true });
    if (this.#signal.aborted) this.#onAbort();
  }

  /**
   * The label of the oldest file sent and not answered when the search was stopped: the one the
   * worker was matching (or, if it was still starting, about to match); undefined when idle.
   */
  get interrupted(): string | undefined {
    return this.#interrupted;
  }

  /**
   * The matches in `text`. Texts are sent without waiting, so reading the next file overlaps
   * matching this one; the caller bounds how many are outstanding.
   */
  search(label: string, text: string): Promise<FileMatches> {
    const id = this.#nextId++;
    const answer = new Promise<FileMatches>((resolve, reject) => {
      if (this.#failure !== undefined) return reject(this.#failure.reason);
      this.#pending.set(id, { label, resolve, reject });
      try {
        this.#started().postMessage({ id, text } satisfies GrepWorkerRequest);
      } catch (error) {
        this.#stop(error); // the worker could not be started: rejects this and any other search
      }
    });
    // A caller that stops awaiting (an earlier file failed first) must not leave an unhandled rejection.
    answer.catch(() => {});
    return answer;
  }

  /** Terminates the worker (if one started) and detaches from the signal. */
  async close(): Promise<void> {
    this.#signal.removeEventListener("abort", this.#onAbort);
    this.#terminate();
    await this.#terminating;
  }

  #started(): Worker {
    if (this.#worker !== undefined) return this.#worker;
    const worker = startWorker(this.#data);
    worker.on("message", ({ id, count, lines }: GrepWorkerReply) => {
      const pending = this.#pending.get(id);
      this.#pending.delete(id);
      pending?.resolve({ count, lines });
    });
    worker.on("error", (error) => this.#stop(error));
    worker.on("exit", (code) => {
      if (this.#worker === worker)
        this.#stop(new ToolFailure("bad-pattern", `grep's search worker exited unexpectedly (code ${code})`));
    });
    this.#worker = worker;
    return worker;
  }

  #stop(reason: unknown): void {
    if (this.#failure !== undefined) return;
    this.#failure = { reason };
    // The worker answers in order, so the oldest unanswered file is the one it was on.
    this.#interrupted = this.#pending.values().next().value?.label;
    for (const pending of this.#pending.values()) pending.reject(this.#failure.reason);
    this.#pending.clear();
    this.#terminate();
  }

  /** Terminates the worker if one runs; `close` awaits it. */
  #terminate(): void {
    const worker = this.#worker;
    this.#worker = undefined;
    if (worker !== undefined) this.#terminating = worker.terminate();
  }
}

let tsxApi: string | undefined;

/**
 * A worker running grep-worker: the compiled .js — beside this code (an application's bundle
 * that inlined Keelson), or in dist/builtin-tools/ (this code runs from a shared chunk in
 * dist/chunks/, scripts/build-bundle.mjs) — or, when running from the TypeScript sources
 * (vitest, tsx), where no .js exists, the .ts loaded through tsx's `tsImport`. A Worker needs a
 * real file, Node 20 cannot load .ts, and `--import tsx` in a worker's execArgv does not apply to
 * the worker's own entry module, hence the eval'd bootstrap.
 */
function startWorker(workerData: GrepWorkerData): Worker {
  const compiled = new URL("./grep-worker.js", import.meta.url);
  for (const url of [compiled, new URL("../builtin-tools/grep-worker.js", import.meta.url)])
    if (existsSync(fileURLToPath(url))) return new Worker(url, { workerData, resourceLimits: RESOURCE_LIMITS });
  const sourceUrl = new URL("./grep-worker.ts", import.meta.url);
  if (!existsSync(fileURLToPath(sourceUrl)))
    throw new ToolFailure(
      "not-a-file",
      `grep's worker ${fileURLToPath(compiled)} is missing (a bundle that inlined Keelson must keep dist/builtin-tools/grep-worker.js beside it, or mark keelson external)`,
    );
  const source = sourceUrl.href;
  tsxApi ??= import.meta.resolve("tsx/esm/api");
  const bootstrap = `import(${JSON.stringify(tsxApi)}).then((tsx) => tsx.tsImport(${JSON.stringify(source)}, ${JSON.stringify(source)}));`;
  return new Worker(bootstrap, { eval: true, workerData, resourceLimits: RESOURCE_LIMITS });
}
