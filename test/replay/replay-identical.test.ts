// P31: replay with unchanged code and options reports every request identical, and never changes
// the stored session.
import { readFile } from "node:fs/promises";
import { describe, expect, test } from "vitest";
import { reconstructRequests } from "../../src/reconstruct/index.js";
import { replaySession } from "../../src/replay/index.js";
import type { JsonlSessionStore } from "../../src/store/index.js";
import { appOptions, contributor, record, scripted, TOOL_TURN, useTempStore } from "./support.js";

let store: JsonlSessionStore;
useTempStore((temp) => {
  store = temp.store;
});

describe("replay with unchanged code", () => {
  test("reports every request identical and leaves the stored log untouched", async () => {
    const plugins = [contributor("conventions", () => "House style: one line.")];
    const options = appOptions(scripted([...TOOL_TURN, ...TOOL_TURN]), { plugins, store });
    const id = await record(options, ["one", "two"]);
    const before = await readFile(store.fileOf(id), "utf8");
    const report = await replaySession(store, id, { ...options, provider: scripted() });
    expect(report.differences).toEqual([]);
    expect(report.identical).toBe(true);
    expect(report.requests).toEqual({ logged: 4, replayed: 4, identical: 4 });
    expect(report.turns).toEqual([]);
    expect(await readFile(store.fileOf(id), "utf8")).toBe(before);
  });

  test("the replayed requests are the logged ones, byte for byte", async () => {
    const options = appOptions(scripted(TOOL_TURN), { store });
    const id = await record(options, ["one"]);
    const report = await replaySession(store, id, options);
    expect(report.identical).toBe(true);
    const { session } = await store.load(id, { readOnly: true });
    expect(reconstructRequests(session.events)).toHaveLength(2);
  });
});
