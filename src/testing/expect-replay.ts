// expectReplayIdentical: the replay as an assertion for an app's own test suite (vitest, node:test,
// any runner that fails a test on a thrown Error): replay a recorded session with the app's current
// agent options and throw, with the readable report as the message, unless every request is
// rebuilt exactly as logged.
import { basename, dirname, resolve } from "node:path";
import {
  type ReplayOptions,
  type ReplayReport,
  ReplayError,
  replayReportText,
  replaySession,
} from "../replay/index.js";
import { JsonlSessionStore } from "../store/index.js";

/**
 * Replays the session log `file` — as the JSONL store writes it: `<session id>.jsonl`, with a
 * fork's parent log beside it — with `options` (the app's agent options; see `ReplayOptions`).
 * Resolves with the report when every request is identical; otherwise throws
 * `ReplayError('differs')` whose message lists each difference (segment, logged and rebuilt
 * values, the event that explains it, the cache cost) and whose `report` is the whole report.
 * Never writes to the file.
 */
export async function expectReplayIdentical(file: string, options: ReplayOptions): Promise<ReplayReport> {
  const path = resolve(file);
  const store = new JsonlSessionStore({ root: dirname(path), cacheSessions: 0 });
  let report: ReplayReport;
  try {
    report = await replaySession(store, basename(path, ".jsonl"), options);
  } finally {
    await store.close();
  }
  if (!report.identical) throw new ReplayError("differs", replayReportText(report), { report });
  return report;
}
