// The tools suite's swap races: while read / write / edit run on a path, a worker thread swaps
// it in a tight loop — each swap an atomic rename, so the path always exists — between an inside
// target and an outside one:
//   - file: `race.txt` is a regular file, then a symlink to an outside file, then a file again…
//   - dir:  `swapdir` is a symlink to `real-dir` (inside), then to an outside directory…, and the
//           call goes to `swapdir/race.txt` (the parent directory is what changes under it);
//   - hardlink: `race.txt` is a regular file, then a hard link to an outside file (no secret in
//           it: a hard link's content is the workspace's to read, but write and edit must not
//           change it).
// A check of the path followed by an open is the window; the outside files hold the MARK the
// edits look for, so a write or edit that went through would change one, and the symlinked ones
// hold the secret, so a read that went through would show it.
import { Worker } from "node:worker_threads";
import { join } from "node:path";
import { MARK, PATHS, type HostileWorkspace } from "./tools-workspace.js";

export type RaceMode = "file" | "dir" | "hardlink";

export interface RaceCall {
  readonly mode: RaceMode;
  readonly tool: "read" | "write" | "edit";
  readonly args: Readonly<Record<string, unknown>>;
}

/**
 * Race trial `i` of `count`: the first `symlinkRaces` swap symlinks (half the file, half its
 * directory), the rest swap in a hard link; the tool is seeded.
 */
export function raceCall(i: number, symlinkRaces: number, random: () => number): RaceCall {
  const mode: RaceMode = i >= symlinkRaces ? "hardlink" : i < Math.ceil(symlinkRaces / 2) ? "file" : "dir";
  const path = mode === "dir" ? `${PATHS.raceDirLink}/race.txt` : PATHS.raceFile;
  const pick = Math.floor(random() * 3);
  if (pick === 0) return { mode, tool: "read", args: { path } };
  if (pick === 1) return { mode, tool: "write", args: { path, content: `race write ${i} ${MARK}\n` } };
  return { mode, tool: "edit", args: { path, oldString: MARK, newString: `${MARK}!` } };
}

type SwapState =
  | { readonly kind: "file"; readonly content: string }
  | { readonly kind: "link" | "hardlink"; readonly target: string };

interface SwapperData {
  readonly path: string;
  readonly tmp: string;
  readonly states: readonly SwapState[];
  readonly shared: SharedArrayBuffer;
}

// Plain CommonJS, run with `eval`: no TypeScript loader in the worker. Shared ints: [0] stop
// flag, [1] swaps made so far. It posts "running" after its first swap and its swap count when
// it stops, leaving the path in states[0].
const SWAPPER_SOURCE = `
const { workerData, parentPort } = require("node:worker_threads");
const fs = require("node:fs");
const { path, tmp, states, shared } = workerData;
const ints = new Int32Array(shared);
const put = (state) => {
  fs.rmSync(tmp, { force: true });
  if (state.kind === "file") fs.writeFileSync(tmp, state.content);
  else if (state.kind === "hardlink") fs.linkSync(state.target, tmp);
  else fs.symlinkSync(state.target, tmp);
  fs.renameSync(tmp, path);
};
let swaps = 0;
while (Atomics.load(ints, 0) === 0) {
  put(states[(swaps + 1) % states.length]);
  swaps++;
  Atomics.store(ints, 1, swaps);
  if (swaps === 1) parentPort.postMessage("running");
}
put(states[0]);
parentPort.postMessage(swaps);
`;

/** A running swapper; `stop` ends it (the path back in its inside state) and says how many swaps it made. */
export class Swapper {
  readonly #worker: Worker;
  readonly #shared: Int32Array;
  readonly #done: Promise<number>;

  private constructor(worker: Worker, shared: Int32Array, done: Promise<number>) {
    this.#worker = worker;
    this.#shared = shared;
    this.#done = done;
  }

  /** Starts swapping the race path of `mode`; resolves once the first swap is done. */
  static async start(ws: HostileWorkspace, mode: RaceMode): Promise<Swapper> {
    const inside: SwapState = { kind: "file", content: `inside race file ${MARK}\n` };
    const states: SwapState[] =
      mode === "file"
        ? [inside, { kind: "link", target: join(ws.outside, "secret.txt") }]
        : mode === "hardlink"
          ? [inside, { kind: "hardlink", target: join(ws.outside, "linked.txt") }]
          : [
              { kind: "link", target: PATHS.raceRealDir },
              { kind: "link", target: join(ws.outside, "dir") },
            ];
    const path = ws.abs(mode === "dir" ? PATHS.raceDirLink : PATHS.raceFile);
    const shared = new SharedArrayBuffer(8);
    const data: SwapperData = { path, tmp: `${path}.swap`, states, shared };
    const worker = new Worker(SWAPPER_SOURCE, { eval: true, workerData: data });
    let started!: () => void;
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    const done = new Promise<number>((resolve, reject) => {
      worker.on("message", (message: "running" | number) => (message === "running" ? started() : resolve(message)));
      worker.once("error", reject);
      worker.once("exit", (code) => reject(new Error(`the swapper exited (code ${code}) before reporting`)));
    });
    done.catch(() => {}); // observed by stop() or by the race below
    await Promise.race([running, done]);
    return new Swapper(worker, new Int32Array(shared), done);
  }

  /** Swaps made so far (read while calls run: a call with none in its span raced nothing). */
  get swaps(): number {
    return Atomics.load(this.#shared, 1);
  }

  async stop(): Promise<number> {
    Atomics.store(this.#shared, 0, 1);
    try {
      return await this.#done;
    } finally {
      await this.#worker.terminate();
    }
  }
}
