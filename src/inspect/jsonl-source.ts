// The inspector's view of a JSONL sessions directory, read-only: every load is the store's
// `load(id, { readOnly: true })` (no lock, no repair, no truncation), and a watch is fs.watch on
// the log plus a stat poll (fs.watch misses events on some file systems), re-reading the log
// when its size or mtime changes and handing on the events past the last one delivered.
import { errorMessage } from "../errors/index.js";
import { watch as fsWatch, type FSWatcher } from "node:fs";
import { open, readdir, stat } from "node:fs/promises";
import type { SessionEvent } from "../session/index.js";
import { JsonlSessionStore, StoreError } from "../store/index.js";
import { listedSession } from "./session-summary.js";
import {
  type InspectedSession,
  InspectError,
  type InspectSource,
  type InspectWatch,
  type ListedSession,
} from "./types.js";

export interface JsonlInspectSourceOptions {
  /** The sessions directory (`$KEELSON_HOME/sessions`). */
  readonly root: string;
  /** How often a watch stats the log besides fs.watch (ms; default 500). */
  readonly pollMs?: number;
}

export class JsonlInspectSource implements InspectSource {
  readonly label: string;
  readonly #store: JsonlSessionStore;
  readonly #pollMs: number;
  readonly #watches = new Set<InspectWatch>();

  constructor(options: JsonlInspectSourceOptions) {
    this.#store = new JsonlSessionStore({ root: options.root });
    this.label = this.#store.root;
    this.#pollMs = options.pollMs ?? 500;
  }

  async list(): Promise<ListedSession[]> {
    const names = (await readdir(this.#store.root).catch(() => [] as string[])).filter((n) => n.endsWith(".jsonl"));
    const rows: ListedSession[] = [];
    for (const name of names.sort()) {
      try {
        const { session, updatedAt } = await this.load(name.slice(0, -".jsonl".length));
        rows.push(listedSession(session, updatedAt));
      } catch (error) {
        rows.push({
          kind: "unreadable",
          name,
          problem: errorMessage(error),
          ...(error instanceof StoreError ? { code: error.code } : {}),
        });
      }
    }
    return rows;
  }

  async load(id: string): Promise<InspectedSession> {
    let file: string;
    try {
      file = this.#store.fileOf(id);
    } catch (error) {
      throw new InspectError("bad-request", `not a session id ${JSON.stringify(id)}: ${(error as Error).message}`);
    }
    try {
      const { session } = await this.#store.load(id, { readOnly: true });
      const info = await stat(file);
      return { session, where: file, firstSeq: await firstSeqOf(file), updatedAt: info.mtimeMs };
    } catch (error) {
      if (error instanceof StoreError && error.code === "not-found")
        throw new InspectError("not-found", `no session ${id} (${file} does not exist)`);
      throw error;
    }
  }

  async watch(
    id: string,
    fromSeq: number,
    onEvents: (events: readonly SessionEvent[]) => void,
    onError: (error: unknown) => void,
  ): Promise<InspectWatch> {
    const file = this.#store.fileOf(id);
    let delivered = fromSeq;
    let seen = "";
    let closed = false;
    let chain = Promise.resolve();
    const check = (): void => {
      chain = chain.then(async () => {
        if (closed) return;
        try {
          const info = await stat(file);
          const identity = `${info.size}:${info.mtimeMs}:${info.ino}`;
          if (identity === seen) return;
          seen = identity;
          const { session } = await this.#store.load(id, { readOnly: true });
          const fresh = session.events.slice(delivered);
          if (fresh.length === 0 || closed) return;
          delivered = session.events.length;
          onEvents(fresh);
        } catch (error) {
          onError(error);
        }
      });
    };
    let watcher: FSWatcher | undefined;
    try {
      watcher = fsWatch(file, { persistent: false }, check);
      watcher.on("error", () => undefined); // the poll below still runs
    } catch {
      watcher = undefined; // no fs.watch here: the poll alone
    }
    const timer = setInterval(check, this.#pollMs);
    timer.unref();
    check();
    const handle: InspectWatch = {
      close: async () => {
        closed = true;
        clearInterval(timer);
        watcher?.close();
        this.#watches.delete(handle);
        await chain;
      },
    };
    this.#watches.add(handle);
    return handle;
  }

  async close(): Promise<void> {
    await Promise.all([...this.#watches].map((w) => w.close()));
    await this.#store.close();
  }
}

/** Seq of the file's first event line: a fork stored by reference (`seedFrom`) starts at its seed length. */
async function firstSeqOf(file: string): Promise<number> {
  const handle = await open(file, "r");
  try {
    const buf = Buffer.alloc(64 * 1024);
    const { bytesRead } = await handle.read(buf, 0, buf.length, 0);
    const nl = buf.subarray(0, bytesRead).indexOf(0x0a);
    if (nl < 0) return 0;
    const header = JSON.parse(buf.toString("utf8", 0, nl)) as { seedFrom?: unknown; seedLength?: unknown };
    return header.seedFrom !== undefined && typeof header.seedLength === "number" ? header.seedLength : 0;
  } finally {
    await handle.close();
  }
}
