// The hostile-logs oracle: loads one corrupted file read-only and writable through the real
// JsonlSessionStore, reconstructs and verifies what loaded, and classifies the case as exactly
// one outcome — or reports what broke.
//
//   identical  the file says what the original says (same header and events, no torn tail):
//              the load equals the original's (its crash repair included, for an original that
//              crashed mid-turn) and so do all the reconstructed requests.
//   repaired   the store reports a notice (dropped torn bytes / repair closers) and the loaded
//              events are a prefix of the original's plus the crash-repair closers; every
//              request dispatched inside the kept prefix equals the original's (a step the cut
//              left undispatched is closed by repair, and its request is the repair's claim).
//   prefix     the file is a clean cut of the original (whole lines, no open turn): a shorter
//              valid log, loaded as it is.
//   rewritten  the bytes are another valid log (an edit no reader can detect without a
//              checksum): the load must be faithful to the bytes, as the reference decoder
//              reads them, and verifyLog must pass.
//   rejected   a typed error: StoreError (corrupt / foreign, naming the file and a line at or
//              after the first changed one; the file and the lock left as they were) at load, or
//              HeaderError / ReconstructError at reconstruction (then verifyLog reports it too).
//
// Always: loading a prefix of the original is never refused; read-only and writable loads agree;
// repair is durable; loaded values are plain, frozen, lossless JSON; verifyLog never throws.
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { isDeepStrictEqual } from "node:util";
import { HeaderError } from "../src/header/index.js";
import {
  type ReconstructedRequest,
  ReconstructError,
  reconstructRequests,
  verifyLog,
} from "../src/reconstruct/index.js";
import type { SessionEvent } from "../src/session/index.js";
import { JsonlSessionStore, type LoadedSession, StoreError } from "../src/store/index.js";
import { inspectLoaded } from "./hostile-logs-canaries.js";
import {
  type Decoded,
  decodeReference,
  dispatchSeqs,
  firstChangedLine,
  isPrefixOf,
  type OriginalLog,
  requestView,
} from "./hostile-logs-reference.js";

export type Outcome = "identical" | "repaired" | "prefix" | "rewritten" | "rejected";

export interface Verdict {
  readonly outcome: Outcome | undefined;
  /** Where a rejection came from. */
  readonly stage?: "load" | "reconstruct";
  readonly failures: readonly string[];
  /** Length of the error message a rejection carried (for the report). */
  readonly errorChars?: number;
}

export interface TrialFiles {
  readonly root: string;
  readonly id: string;
  readonly file: string;
  readonly lock: string;
}

/**
 * The longest error message a hostile log may produce (issue #20 F20): errors quote hostile
 * values and lines in bounded previews, so a megabyte string never reaches a message.
 */
export const MAX_ERROR_CHARS = 2_000;

/** A failure for each message (of `what`) over MAX_ERROR_CHARS, with its start to find its source. */
function unbounded(messages: readonly (string | undefined)[], what: string): string[] {
  return messages
    .filter((m): m is string => m !== undefined && m.length > MAX_ERROR_CHARS)
    .map((m) => `${what} message is ${m.length} chars (over ${MAX_ERROR_CHARS}): ${m.slice(0, 200)}…`);
}

/** An error as a short line for a failure report. */
export const describeError = (e: unknown): string =>
  e instanceof Error ? `${e.name}: ${e.message.slice(0, 300)}` : String(e);
const describe = describeError;
const typeAndData = (events: readonly { type: string; data: unknown }[]): unknown[] =>
  events.map((e) => ({ type: e.type, data: e.data }));

async function tryLoad(
  store: JsonlSessionStore,
  id: string,
  readOnly: boolean,
): Promise<{ loaded?: LoadedSession; error?: unknown }> {
  try {
    return { loaded: await store.load(id, { readOnly }) };
  } catch (error) {
    return { error };
  }
}

/** Checks a load refusal: a StoreError naming the file and a plausible line. */
function checkRefusal(error: unknown, files: TrialFiles, changedLine: number, mode: string): string[] {
  if (!(error instanceof StoreError)) return [`${mode} load threw an untyped ${describe(error)}`];
  const out: string[] = [];
  if (error.code !== "corrupt" && error.code !== "foreign" && error.code !== "newer-version")
    out.push(`${mode} load refused with code ${error.code}: ${describe(error)}`);
  if (error.file !== files.file) out.push(`${mode} refusal names file ${String(error.file)}`);
  if (error.line === undefined) out.push(`${mode} refusal names no line: ${describe(error)}`);
  else if (error.line < changedLine)
    out.push(
      `${mode} refusal blames line ${error.line}, but the file is unchanged before line ${changedLine}: ${describe(error)}`,
    );
  return out;
}

export async function judge(files: TrialFiles, original: OriginalLog, bytes: Buffer): Promise<Verdict> {
  await writeFile(files.file, bytes);
  const decoded = decodeReference(bytes);
  const mustLoad = decoded.ok && isPrefixOf(decoded, original);
  const ro = await tryLoad(new JsonlSessionStore({ root: files.root }), files.id, true);
  const writer = new JsonlSessionStore({ root: files.root });
  const rw = await tryLoad(writer, files.id, false);
  const failures: string[] = [];
  try {
    if (rw.loaded !== undefined) await writer.release(files.id);
  } catch (e) {
    failures.push(`release after a writable load threw ${describe(e)}`);
  }

  if (ro.error !== undefined || rw.error !== undefined) {
    const changed = firstChangedLine(bytes, original.bytes);
    if (ro.error === undefined || rw.error === undefined)
      failures.push(`read-only and writable loads disagree: ${describe(ro.error ?? rw.error)}`);
    if (ro.error !== undefined) failures.push(...checkRefusal(ro.error, files, changed, "read-only"));
    if (rw.error !== undefined) failures.push(...checkRefusal(rw.error, files, changed, "writable"));
    if (mustLoad) failures.push(`refused a file that is a prefix of a valid log: ${describe(ro.error ?? rw.error)}`);
    if (!(await readFile(files.file)).equals(bytes)) failures.push("a refused load changed the file");
    if (existsSync(files.lock)) failures.push("a refused writable load left its lock behind");
    const error = ro.error ?? rw.error;
    const messages = [ro.error, rw.error].map((e) => (e instanceof Error ? e.message : undefined));
    failures.push(...unbounded(messages, "a load refusal"));
    return {
      outcome: "rejected",
      stage: "load",
      failures,
      errorChars: error instanceof Error ? error.message.length : 0,
    };
  }
  return judgeLoaded(files, original, bytes, decoded, ro.loaded!, rw.loaded!, failures);
}

async function judgeLoaded(
  files: TrialFiles,
  original: OriginalLog,
  bytes: Buffer,
  decoded: Decoded,
  ro: LoadedSession,
  rw: LoadedSession,
  failures: string[],
): Promise<Verdict> {
  const fail = (why: string): Verdict => ({ outcome: undefined, failures: [...failures, why] });
  if (!decoded.ok) return fail(`the load succeeded on bytes the strict reader refuses (${decoded.reason})`);
  const events = rw.session.events;

  // Faithful to the bytes, read-only and writable agreeing, repair durable.
  if (!isDeepStrictEqual(ro.session.header, decoded.header))
    failures.push("the loaded session header differs from line 1");
  if (!isDeepStrictEqual(ro.session.events, decoded.events))
    failures.push("the loaded events differ from what the lines say");
  if (ro.droppedBytes !== decoded.tornBytes || rw.droppedBytes !== decoded.tornBytes) {
    failures.push(`dropped ${ro.droppedBytes}/${rw.droppedBytes} bytes, but the torn tail is ${decoded.tornBytes}`);
  }
  if (!isDeepStrictEqual(typeAndData(rw.repaired), typeAndData(ro.session.openTurnClosers())))
    failures.push("the writable load's closers differ from the crash-repair closers");
  if (ro.needsRepair !== rw.repaired.length > 0)
    failures.push(
      `read-only needsRepair ${ro.needsRepair}, but the writable load appended ${rw.repaired.length} closers`,
    );
  if (!isDeepStrictEqual(events, [...ro.session.events, ...rw.repaired]))
    failures.push("the writable load's events are not the read-only ones plus the closers");
  const expectedFile = Buffer.concat([
    bytes.subarray(0, bytes.length - decoded.tornBytes),
    Buffer.from(rw.repaired.map((e) => `${JSON.stringify(e)}\n`).join("")),
  ]);
  if (!(await readFile(files.file)).equals(expectedFile))
    failures.push("after the writable load the file is not the kept lines plus the closers");
  if (existsSync(files.lock)) failures.push("the lock outlived release");
  if (rw.repaired.length > 0 || rw.droppedBytes > 0) {
    const again = await new JsonlSessionStore({ root: files.root }).load(files.id, { readOnly: true });
    if (again.droppedBytes !== 0 || again.needsRepair || !isDeepStrictEqual(again.session.events, events))
      failures.push("reloading after the repair does not give the repaired log back");
  }
  failures.push(
    ...inspectLoaded(rw.session.header, "header", { frozen: true }),
    ...inspectLoaded(events, "events", { frozen: true }),
  );

  let report: ReturnType<typeof verifyLog> | undefined;
  try {
    report = verifyLog(events);
    failures.push(
      ...unbounded(
        report.issues.map((i) => i.message),
        "a verifyLog issue",
      ),
    );
  } catch (e) {
    failures.push(`verifyLog threw ${describe(e)}`);
  }
  let requests: ReconstructedRequest[];
  try {
    requests = reconstructRequests(events);
    for (const r of requests) void r.request;
  } catch (e) {
    if (!(e instanceof HeaderError || e instanceof ReconstructError))
      return fail(`reconstructRequests threw an untyped ${describe(e)}`);
    if (report?.ok !== false) failures.push(`reconstruction refused the log (${describe(e)}) but verifyLog passed it`);
    const prefix = isPrefixOf(decoded, original);
    if (prefix) failures.push(`reconstruction refused a prefix of a valid log: ${describe(e)}`);
    failures.push(...unbounded([e.message], "a reconstruction refusal"));
    return { outcome: "rejected", stage: "reconstruct", failures, errorChars: e.message.length };
  }
  if (report !== undefined && !report.ok)
    failures.push(
      `verifyLog reports ${JSON.stringify(report.issues).slice(0, 300)} on a log that loads and reconstructs`,
    );
  failures.push(...inspectLoaded(requests.map(requestView), "requests", { frozen: false }));
  return { outcome: classify(decoded, original, ro, events, requests, failures), failures };
}

function classify(
  decoded: Decoded & { ok: true },
  original: OriginalLog,
  ro: LoadedSession,
  events: readonly SessionEvent[],
  requests: readonly ReconstructedRequest[],
  failures: string[],
): Outcome {
  if (!isPrefixOf(decoded, original)) return "rewritten";
  const kept = decoded.events.length;
  if (kept === original.events.length && decoded.tornBytes === 0) {
    if (!isDeepStrictEqual(requests.map(requestView), original.requests.map(requestView)))
      failures.push("identical log, different requests");
    return "identical";
  }
  // Every request dispatched inside the kept prefix is the original's; the closers add none.
  const within =
    (dispatched: Map<number, number>) =>
    (r: ReconstructedRequest): boolean =>
      (dispatched.get(r.stepStartSeq) ?? Number.POSITIVE_INFINITY) < kept;
  const expected = original.requests.filter(within(dispatchSeqs(original.events)));
  const got = requests.filter(within(dispatchSeqs(events)));
  if (!isDeepStrictEqual(got.map(requestView), expected.map(requestView)))
    failures.push(`requests dispatched in the first ${kept} events differ from the original's`);
  return ro.droppedBytes > 0 || ro.needsRepair ? "repaired" : "prefix";
}
