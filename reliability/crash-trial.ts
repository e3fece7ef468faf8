// One trial of the crash suite, after the kill (crash-kill.ts): checks what survived of one
// session against the child's own durability claims (flushes, steps ended, the tool it was
// executing, the side effects its tools made) and against an in-memory reference run of the
// same deterministic script, reloads (repair), reloads again (nothing left to repair), and
// resumes the session for one more turn. A violated property throws; the result lists the
// outcome kinds for the suite's counts.
import { createHash } from "node:crypto";
import { access, appendFile, readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { ScriptedProvider } from "../src/llm/index.js";
import { createAgent, resumeAgent } from "../src/loop/index.js";
import { reconstructRequests, verifyLog } from "../src/reconstruct/index.js";
import { Session, type SessionEvent, type SessionMeta } from "../src/session/index.js";
import { JSONL_FORMAT, JsonlSessionStore, type LoadedSession } from "../src/store/index.js";
import type { InFlightTool, KillReport } from "./crash-kill.js";
import { crashAgentBase, crashAgentOptions, type CrashScript } from "./fixtures/crash-session.js";
import { check } from "./violation.js";

const eventLine = (event: SessionEvent): string => `${JSON.stringify(event)}\n`;
const headerLine = (header: SessionMeta): string => `${JSON.stringify({ format: JSONL_FORMAT, ...header })}\n`;
const sha256 = (text: string): string => createHash("sha256").update(text).digest("hex");

export interface Reference {
  readonly header: SessionMeta;
  readonly events: readonly SessionEvent[];
  /** The JSONL file of the full run: header line, then one line per event. */
  readonly lines: readonly string[];
}

/** The same script run in memory, without a store: what the child's file must be a prefix of. */
export async function referenceRun(script: CrashScript): Promise<Reference> {
  const agent = createAgent(crashAgentOptions(script));
  for (const prompt of script.prompts) {
    const outcome = await agent.send(prompt);
    check(
      outcome.reason.kind === "completed",
      `reference run: turn ${outcome.turn} ended ${JSON.stringify(outcome.reason)}`,
    );
  }
  await agent.dispose();
  const { header, events } = agent.session;
  return { header, events, lines: [headerLine(header), ...events.map(eventLine)] };
}

const exists = (path: string): Promise<boolean> =>
  access(path).then(
    () => true,
    () => false,
  );

export interface KilledSession {
  readonly script: CrashScript;
  readonly reference: Reference;
  /** The session's own temp root. */
  readonly root: string;
  readonly report: KillReport;
  /** Where the child's `effect` tool recorded its side effects for this session (may not exist). */
  readonly effectsFile: string;
  /** Uniform [0, 1) draws for the injected torn tail. */
  readonly random: () => number;
}

/** Checks one killed session; returns its outcome kinds, throws a Violation (or anything else) on failure. */
export async function checkKilledSession({
  script,
  reference,
  root,
  report,
  effectsFile,
  random,
}: KilledSession): Promise<string[]> {
  const kinds = report.finished ? ["finished-before-kill"] : [];
  kinds.push(report.inFlight === undefined ? "killed-in-model-call" : `killed-in-tool:${report.inFlight.name}`);
  const file = join(root, `${script.sessionId}.jsonl`);
  // Every session is past its create when the kill window opens (its first model call waits after it).
  check(await exists(file), `${file} does not exist after the kill`);
  const survived = await checkSurvivors(file, reference, report, { injectTorn: random() < 0.25, tornCut: random() });
  const events = survived.lines - 1;
  const inFlight = report.inFlight === undefined ? undefined : checkInFlightTool(reference, report.inFlight, events);
  return [
    ...kinds,
    ...survived.kinds,
    ...checkStepsBeforeWindow(reference, report, events),
    ...(await checkSideEffects(effectsFile, reference, report.inFlight, events)),
    ...(await checkRepairAndResume(root, script, reference, survived, inFlight)),
  ];
}

const indexOfEvent = (reference: Reference, match: (event: SessionEvent) => boolean): number =>
  reference.events.findIndex(match);

const dataOf = (event: SessionEvent): { turn?: number; step?: number; callId?: string; name?: string } =>
  event.data as { turn?: number; step?: number; callId?: string; name?: string };

/** Every step whose step/end the child reported before its kill window is on disk (byte-exact: the file is a verified prefix). */
function checkStepsBeforeWindow(reference: Reference, report: KillReport, events: number): string[] {
  for (const { turn, step } of report.stepsBeforeWindow) {
    const at = indexOfEvent(
      reference,
      (e) => e.type === "step/end" && dataOf(e).turn === turn && dataOf(e).step === step,
    );
    check(at !== -1, `the child reported step/end of turn ${turn} step ${step}, which the reference run never logged`);
    check(
      at < events,
      `step ${step} of turn ${turn} ended before the kill window (the child reported its step/end), but the file holds only ${events} events and its step/end is event ${at + 1}`,
    );
  }
  return report.stepsBeforeWindow.length > 0 ? ["ended-steps-on-disk"] : [];
}

/** A tool with side effects that was executing at the kill: its call and the assistant message that asked for it. */
export interface InFlightCall extends InFlightTool {
  readonly turn: number;
  readonly step: number;
}

/** The killed tool's tool/call and its step's assistant/message are on disk; its result is not (it never returned). */
function checkInFlightTool(reference: Reference, tool: InFlightTool, events: number): InFlightCall {
  const call = indexOfEvent(reference, (e) => e.type === "tool/call" && dataOf(e).callId === tool.callId);
  check(call !== -1, `the child was killed inside call ${tool.callId}, which the reference run never made`);
  const { turn, step, name } = dataOf(reference.events[call]!);
  check(name === tool.name, `call ${tool.callId} is a ${name} call in the reference, the child ran ${tool.name}`);
  const asked = indexOfEvent(
    reference,
    (e) => e.type === "assistant/message" && dataOf(e).turn === turn && dataOf(e).step === step,
  );
  check(
    asked < events,
    `the child was killed inside ${tool.name} (${tool.callId}), but the assistant message that asked for it (event ${asked + 1}) is not on disk (${events} events): the log was not durable before the tool ran`,
  );
  check(
    call < events,
    `the child was killed inside ${tool.name} (${tool.callId}), but its tool/call (event ${call + 1}) is not on disk (${events} events): the log was not durable before the side effect`,
  );
  const result = indexOfEvent(reference, (e) => e.type === "tool/result" && dataOf(e).callId === tool.callId);
  check(result >= events, `the result of ${tool.callId} is on disk, but the tool never returned`);
  return { ...tool, turn: turn!, step: step! };
}

/** Every side effect `effect` made has its tool/call on disk: the call was durable before the effect happened. */
async function checkSideEffects(
  effectsFile: string,
  reference: Reference,
  inFlight: InFlightTool | undefined,
  events: number,
): Promise<string[]> {
  const text = (await exists(effectsFile)) ? await readFile(effectsFile, "utf8") : "";
  const callIds = text
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => line.slice(0, line.indexOf(" ")));
  for (const callId of callIds) {
    const at = indexOfEvent(reference, (e) => e.type === "tool/call" && dataOf(e).callId === callId);
    check(
      at !== -1 && at < events,
      `the side effect of ${callId} happened, but its tool/call is not on disk (${events} events)`,
    );
  }
  if (inFlight?.name === "effect")
    check(
      callIds.includes(inFlight.callId),
      `the killed effect ${inFlight.callId} left no side effect before it blocked`,
    );
  return callIds.map(() => "side-effect-with-call-on-disk");
}

interface Survivors {
  readonly kinds: string[];
  /** Complete lines on disk after the kill (header included). */
  readonly lines: number;
  /** Bytes after the last complete line (natural or injected). */
  readonly tornBytes: number;
}

/** The file right after the kill: a byte-exact prefix of the reference covering every claim. */
async function checkSurvivors(
  file: string,
  reference: Reference,
  report: KillReport,
  torn: { injectTorn: boolean; tornCut: number },
): Promise<Survivors> {
  const kinds: string[] = [];
  const text = (await readFile(file)).toString("utf8");
  const end = text.lastIndexOf("\n") + 1;
  const lines = text
    .slice(0, end)
    .split(/(?<=\n)/)
    .filter((l) => l !== "");
  let tornBytes = Buffer.byteLength(text.slice(end));
  check(lines.length >= 1, "the session file exists but has no complete header line");
  check(
    lines.length <= reference.lines.length,
    `the file has ${lines.length} complete lines, the full run only ${reference.lines.length}`,
  );
  for (const [i, l] of lines.entries()) {
    check(
      l === reference.lines[i],
      `line ${i + 1} differs from the reference run:\n  file: ${l.slice(0, 300)}\n  want: ${reference.lines[i]?.slice(0, 300)}`,
    );
  }
  // The create's report precedes the first model call, so every session has a claim.
  check(report.claim !== undefined, "the child never reported the session durable");
  const claimed = report.claim.events;
  check(
    lines.length - 1 >= claimed,
    `the child reported ${claimed} events durable, the file holds ${lines.length - 1}`,
  );
  check(
    sha256(lines.slice(0, claimed + 1).join("")) === report.claim.sha,
    `the first ${claimed} events on disk hash differently from what the child reported flushing`,
  );
  if (lines.length - 1 > claimed) kinds.push("written-beyond-claim");
  if (tornBytes > 0) {
    const next = reference.lines[lines.length] ?? "";
    check(next.startsWith(text.slice(end)), "the torn tail is not a prefix of the next reference line");
    kinds.push("torn-tail-natural");
  } else if (torn.injectTorn && lines.length < reference.lines.length) {
    // A power cut can leave part of a write behind; SIGKILL cannot, so simulate it.
    const next = reference.lines[lines.length]!;
    const partial = next.slice(0, 1 + Math.floor(torn.tornCut * (next.length - 1)));
    await appendFile(file, partial);
    tornBytes = Buffer.byteLength(partial);
    kinds.push("torn-tail-injected");
  }
  const last = reference.events[lines.length - 2];
  kinds.push(last === undefined || last.type === "turn/end" ? "killed-between-turns" : "killed-mid-turn");
  const lastClaimed = reference.events[claimed - 1];
  if (lastClaimed !== undefined && lastClaimed.type !== "turn/end") kinds.push("claim-inside-turn");
  return { kinds, lines: lines.length, tornBytes };
}

/** Load (repair), load again (clean), resume for one more turn, verify. */
async function checkRepairAndResume(
  root: string,
  script: CrashScript,
  reference: Reference,
  { lines, tornBytes }: Survivors,
  inFlight: InFlightCall | undefined,
): Promise<string[]> {
  const kinds: string[] = [];
  const id = script.sessionId;
  const file = join(root, `${id}.jsonl`);
  const kept = reference.events.slice(0, lines - 1);
  const openTurn = Session.fromLog(reference.header, kept).openTurn;

  if (await exists(join(root, `${id}.lock`))) kinds.push("stale-lock-taken-over");
  const first = new JsonlSessionStore({ root });
  let loaded: LoadedSession;
  let events: readonly SessionEvent[];
  try {
    loaded = await first.load(id); // takes over a dead child's lock
    check(loaded.droppedBytes === tornBytes, `load dropped ${loaded.droppedBytes} torn bytes, expected ${tornBytes}`);
    events = loaded.session.events;
    check(
      isDeepStrictEqual(events.slice(0, kept.length), kept),
      "the loaded log does not start with the events that were on disk",
    );
    check(
      isDeepStrictEqual(loaded.repaired, events.slice(kept.length)),
      "the loaded log holds events beyond the file and the repair closers",
    );
    if (openTurn === null)
      check(
        loaded.repaired.length === 0,
        `a log ending between turns was "repaired" with ${loaded.repaired.length} events`,
      );
    else {
      const closer = loaded.repaired.at(-1);
      check(
        closer?.type === "turn/end" &&
          isDeepStrictEqual(closer.data, { turn: openTurn, reason: { kind: "interrupted" } }),
        `the repair does not end with turn/end{${openTurn}, interrupted}`,
      );
      check(
        loaded.repaired.every(
          (e) =>
            e.type === "tool/call" ||
            e.type === "step/end" ||
            e.type === "turn/end" ||
            (e.type === "tool/result" && (e.data as { isError: boolean }).isError),
        ),
        "the repair appended something other than tool calls, error results and closers",
      );
      kinds.push(`repaired-${loaded.repaired.length > 1 ? "with-closers" : "turn-only"}`);
    }
    if (inFlight !== undefined) {
      const result = loaded.repaired.findIndex((e) => e.type === "tool/result" && dataOf(e).callId === inFlight.callId);
      const stepEnd = loaded.repaired.findIndex(
        (e) => e.type === "step/end" && dataOf(e).turn === inFlight.turn && dataOf(e).step === inFlight.step,
      );
      check(
        result !== -1 && (loaded.repaired[result]!.data as { isError: boolean }).isError,
        `the repair did not answer the killed call ${inFlight.callId} with an error result`,
      );
      check(
        stepEnd > result,
        `the repair did not close step ${inFlight.step} of turn ${inFlight.turn} after answering the killed call`,
      );
      kinds.push("in-flight-call-repaired");
    }
    check(loaded.session.openTurn === null, "the loaded session still has an open turn");
    const report = verifyLog(events);
    check(report.ok, `verifyLog after repair: ${JSON.stringify(report.issues)}`);
    // Read while the store still holds the session: the repair must be on disk when load returns.
    const onDisk = await readFile(file, "utf8");
    check(
      onDisk === reference.lines.slice(0, lines).join("") + loaded.repaired.map(eventLine).join(""),
      "when load returned, the file was not the surviving lines plus the repair closers, byte for byte",
    );
  } finally {
    await first.close();
  }

  const second = new JsonlSessionStore({ root });
  try {
    const again = await second.load(id);
    check(
      again.repaired.length === 0 && again.droppedBytes === 0,
      `the second load repaired ${again.repaired.length} events and dropped ${again.droppedBytes} bytes: the repair was not durable`,
    );
    check(isDeepStrictEqual(again.session.events, events), "the second load differs from the first");
    await second.release(id);

    const provider = new ScriptedProvider([
      { text: "Checking after the crash.", toolCalls: [{ name: "add", arguments: { a: 2, b: 3 } }] },
      { text: "Resumed fine." },
    ]);
    const agent = await resumeAgent(second, id, { ...crashAgentBase(), provider, invariants: true });
    const outcome = await agent.send("After the crash: one more turn.");
    await agent.dispose();
    check(outcome.reason.kind === "completed", `the resumed turn ended ${JSON.stringify(outcome.reason)}`);
    check(
      outcome.turn === loaded.session.lastTurn + 1,
      `the resumed turn is ${outcome.turn}, expected ${loaded.session.lastTurn + 1}`,
    );
    check(provider.requests.length === 2, `the resumed turn made ${provider.requests.length} requests, expected 2`);
  } finally {
    await second.close();
  }
  const reader = new JsonlSessionStore({ root });
  const final = await reader.load(id, { readOnly: true }).finally(() => reader.close());
  check(!final.needsRepair && final.droppedBytes === 0, "the log after the resumed turn is not closed");
  check(
    isDeepStrictEqual(final.session.events.slice(0, events.length), events),
    "the resumed instance changed the log it resumed",
  );
  const after = verifyLog(final.session.events);
  check(after.ok, `verifyLog after the resumed turn: ${JSON.stringify(after.issues)}`);
  check(
    reconstructRequests(final.session.events).length === after.requests,
    "reconstruction disagrees with verifyLog's request count",
  );
  const leftovers = (await readdir(root)).filter((name) => name.endsWith(".lock"));
  check(leftovers.length === 0, `lock files left after dispose: ${leftovers.join(", ")}`);
  return kinds;
}
