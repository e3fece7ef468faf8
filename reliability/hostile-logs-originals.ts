// The hostile-logs suite's originals on disk: each generated log is written through the real
// JsonlSessionStore (a seed in the atomic first write, the rest appended and flushed), and its
// bytes, events and requests are kept as the oracle's reference. The writing store skips fsync
// (durability is the crash suite's subject; here it only costs time): the bytes are the same.
// Every load under test goes through a store on the real file system.
import * as nodeFs from "node:fs/promises";
import { readFile } from "node:fs/promises";
import { reconstructRequests } from "../src/reconstruct/index.js";
import { JsonlSessionStore, type StoreFileSystem } from "../src/store/index.js";
import { buildOriginal, type OriginalSpec } from "./hostile-logs-cases.js";
import type { TrialFiles } from "./hostile-logs-oracle.js";
import type { OriginalLog } from "./hostile-logs-reference.js";

/** node:fs/promises with `sync` / `datasync` on file handles turned into no-ops. */
const noSyncFs: StoreFileSystem = {
  ...nodeFs,
  open: (async (...args: Parameters<typeof nodeFs.open>) => {
    const handle = await nodeFs.open(...args);
    return new Proxy(handle, {
      get(target, key) {
        if (key === "sync" || key === "datasync") return async () => undefined;
        const value: unknown = Reflect.get(target, key, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  }) as typeof nodeFs.open,
};

/** A store for writing originals under `root`. */
export const originalsStore = (root: string): JsonlSessionStore => new JsonlSessionStore({ root, fs: noSyncFs });

/** Builds the original of a case, stores it in `store` and reads its bytes back. */
export async function storeOriginal(
  store: JsonlSessionStore,
  spec: OriginalSpec,
  files: TrialFiles,
): Promise<OriginalLog> {
  const session = buildOriginal(spec, files.id);
  const events = session.events;
  const split = spec.seedSplit % (events.length + 1);
  await store.create(session.header, events.slice(0, split));
  if (split < events.length) store.append(files.id, events.slice(split));
  await store.release(files.id);
  return { header: session.header, events, requests: reconstructRequests(events), bytes: await readFile(files.file) };
}
