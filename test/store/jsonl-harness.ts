// JsonlSessionStores over a fresh temp dir for the store tests. `cleanup` closes every store
// opened here (so no file handle outlives its test) and removes the dir.
import { mkdtemp, readFile, rm, utimes } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { JsonlSessionStore, type StoreFileSystem } from "../../src/store/index.js";
import type { Session } from "../../src/session/index.js";
import { LogDriver } from "../support/builders.js";
import { type StoreHarness, storeSession } from "../support/store-contract.js";

export interface TempJsonlRoot {
  readonly root: string;
  /** A new store over `root`, optionally with an injected file system. */
  open(fs?: StoreFileSystem): JsonlSessionStore;
  /** The path of session `id`'s log file. */
  fileOf(id: string): string;
  /** The bytes of session `id`'s log file. */
  bytesOf(id: string): Promise<Buffer>;
  cleanup(): Promise<void>;
}

export async function tempJsonlRoot(): Promise<TempJsonlRoot> {
  const root = await mkdtemp(join(tmpdir(), "keelson-store-"));
  const stores: JsonlSessionStore[] = [];
  const fileOf = (id: string): string => join(root, `${id}.jsonl`);
  return {
    root,
    open(fs) {
      const store = new JsonlSessionStore({ root, ...(fs === undefined ? {} : { fs }) });
      stores.push(store);
      return store;
    },
    fileOf,
    bytesOf: (id) => readFile(fileOf(id)),
    async cleanup() {
      // A store a test left failing (an injected write error) may refuse to close; the dir goes anyway.
      for (const store of stores) await store.close().catch(() => undefined);
      await rm(root, { recursive: true, force: true });
    },
  };
}

/** The contract harness for JsonlSessionStore. */
export async function jsonlHarness(): Promise<StoreHarness> {
  const dir = await tempJsonlRoot();
  const backdate = async (id: string, ms: number): Promise<void> => utimes(dir.fileOf(id), ms / 1000, ms / 1000);
  return { store: dir.open(), openSecond: () => dir.open(), backdate, cleanup: () => dir.cleanup() };
}

/** Byte offsets at which each line of `bytes` starts (a line ends with, and includes, "\n"). */
export function lineStarts(bytes: Buffer): number[] {
  const starts = [0];
  for (let at = bytes.indexOf(0x0a); at >= 0 && at + 1 < bytes.length; at = bytes.indexOf(0x0a, at + 1))
    starts.push(at + 1);
  return starts;
}

/** The "\n"-terminated JSONL encoding of `values`, one per line. */
export const jsonLines = (values: readonly unknown[]): string => values.map((v) => `${JSON.stringify(v)}\n`).join("");

/** A temp root holding `session` stored, flushed and released (no writer holds it). */
export async function rootWithStoredSession(session: Session): Promise<TempJsonlRoot> {
  const dir = await tempJsonlRoot();
  const writer = dir.open();
  await storeSession(writer, session);
  await writer.release(session.id);
  return dir;
}

/** One more turn on stored session `id` in `dir`, through a writable load, flushed and released. */
export async function oneMoreTurnIn(dir: TempJsonlRoot, id: string, prompt: string): Promise<void> {
  const store = dir.open();
  const { session } = await store.load(id);
  const persistence = store.attach(session);
  new LogDriver(session).turn({ prompt, steps: [{ text: `re: ${prompt}` }] });
  await persistence.flush();
  persistence.dispose();
  await store.release(id);
}
