// The worker-thread side of grep's regex search (see regex-search.ts, which owns its lifetime):
// it compiles the pattern from `workerData`, then for each file text it is sent, tests every line
// and posts back the matching line numbers and (cut) texts. A catastrophic pattern can only wedge
// this thread, which the main thread terminates; the main event loop stays free.
// Self-contained on purpose (node builtins only): it is loaded as compiled .js, or as .ts through
// tsx when running from the sources, and must load fast either way.
import { parentPort, workerData } from "node:worker_threads";

/** What the worker is started with. */
export interface GrepWorkerData {
  readonly kind: "keelson-grep";
  readonly source: string;
  readonly flags: string;
  /** Matching lines longer than this are cut to it, with `…` appended. */
  readonly maxLine: number;
  /** Texts of matches are sent only for the first `maxMatches` matches of the whole search. */
  readonly maxMatches: number;
}

/** One file to search, in order. */
export interface GrepWorkerRequest {
  readonly id: number;
  readonly text: string;
}

/** The matches in one file: every matching line counted, texts only within the global cap. */
export interface GrepWorkerReply {
  readonly id: number;
  readonly count: number;
  readonly lines: readonly { readonly line: number; readonly text: string }[];
}

const data = workerData as GrepWorkerData | undefined;
if (parentPort !== null && data?.kind === "keelson-grep") {
  const port = parentPort;
  const regex = new RegExp(data.source, data.flags);
  let total = 0;
  port.on("message", ({ id, text }: GrepWorkerRequest) => {
    let count = 0;
    const lines: { line: number; text: string }[] = [];
    text.split(/\r?\n/).forEach((line, i) => {
      if (!regex.test(line)) return;
      count++;
      total++;
      if (total <= data.maxMatches)
        lines.push({ line: i + 1, text: line.length > data.maxLine ? `${line.slice(0, data.maxLine)}…` : line });
    });
    port.postMessage({ id, count, lines } satisfies GrepWorkerReply);
  });
}
