// The replay driver: re-runs a logged session's turns, in order, with the current code — an agent
// built from the app's options over a new in-memory session with the logged session's id and cwd,
// the model answering from the log (ReplayProvider), the log's inputs fed as the log says they
// came (prompts, steers and injects claimed together; steers and injects at a step's boundary;
// a manual compaction; decisions and answers that continue a paused turn; a paused turn's cancel).
// A turn that logs a `resume` header ran in a new loop instance, so the replay starts a new agent
// over the same session before it; a fork's seed is replayed under its ancestors' ids and the
// replay session forked at the boundary, as `forkAgent` does. Nothing is ever written to a store.
import type { JsonObject } from "../json/index.js";
import { type Agent, type AgentOptions, createAgent } from "../loop/index.js";
import type { ReconstructedRequest } from "../reconstruct/index.js";
import { type AnySessionEvent, forkSession, Session, type TurnEndReason } from "../session/index.js";
import { ContributorNames } from "./contributors.js";
import { type RecordedLog, type RecordedTurn, stepKey } from "./recorded-log.js";
import { type ReplayCursor, recordedInputs, STOP_REASON, type SubagentSource, stepGuard } from "./replay-plugins.js";
import { ReplayProvider } from "./replay-provider.js";
import type { ReplayOptions, TurnNote } from "./types.js";

/** One session of a fork's lineage: its id, and the seq where the next one's own events start. */
export interface LineageSegment {
  readonly id: string;
  readonly cwd?: string;
  readonly until?: number;
}

export interface DriveInput {
  readonly log: RecordedLog;
  readonly logged: readonly ReconstructedRequest[];
  readonly createdAt: number;
  /** Oldest ancestor first; the last is the replayed session itself. */
  readonly lineage: readonly LineageSegment[];
  readonly options: ReplayOptions;
}

export interface DriveResult {
  readonly session: Session;
  readonly contributors: ContributorNames;
  readonly notes: readonly TurnNote[];
  /** The subagent calls the replay met, by call id. */
  readonly children: ReadonlyMap<string, SubagentSource>;
}

const keyOf = stepKey;

/** Option keys that belong to the replay (not the agent), and agent options the replay sets itself. */
const NOT_AGENT_OPTIONS = [
  "liveTools",
  "recordedTools",
  "outputFor",
  "children",
  "countTokens",
  "models",
  "provider",
  "providers",
  "store",
  "session",
  "sessionId",
  "retry",
  "invariants",
] as const;

const isMcpTool = (name: string): boolean => name.startsWith("mcp__");

export async function driveReplay(input: DriveInput): Promise<DriveResult> {
  const { log, logged, options } = input;
  const byKey = new Map<number, ReconstructedRequest>();
  const firstOfTurn = new Map<number, ReconstructedRequest>();
  const lastStep = new Map<number, number>();
  for (const r of logged) {
    byKey.set(keyOf(r.turn, r.step), r);
    if (!firstOfTurn.has(r.turn)) firstOfTurn.set(r.turn, r);
    lastStep.set(r.turn, r.step);
  }
  const cursor: ReplayCursor = { turn: undefined, prompt: 0, children: new Map() };
  const contributors = new ContributorNames();
  const ownTools = new Set<string>();
  const pluginOptions = {
    log,
    cursor,
    liveTools: options.liveTools === true,
    recordedTools: options.recordedTools ?? isMcpTool,
    loggedTools: (turn: number, step: number) => toolsAt(logged, byKey, turn, step),
    loggedRequest: (turn: number, step: number) => byKey.has(keyOf(turn, step)),
  };
  const notes: TurnNote[] = [];
  const ends = new Map<number, TurnEndReason>();
  let agent: Agent | undefined;
  let session = newSession(input);
  let segment = 0;
  let fresh = true;
  const provider = new ReplayProvider(log, {
    output: () => {
      const turn = cursor.turn;
      const step = session.openStep;
      return turn === undefined || session.openTurn !== turn.turn || step === null ? undefined : turn.outputs.get(step);
    },
    stop: (reason) => agent?.cancel(reason),
    served: () => {
      const turn = cursor.turn;
      const step = session.openStep;
      if (turn === undefined || step === null || turn.lateInjects.length === 0) return;
      if (lastStep.get(turn.turn) === step)
        for (const content of turn.lateInjects) agent?.inject(content).catch(() => undefined);
    },
  });
  const agentOptions = (turn: RecordedTurn): AgentOptions => {
    const rest: Record<string, unknown> = { ...options };
    for (const key of NOT_AGENT_OPTIONS) delete rest[key];
    return {
      ...(rest as Omit<AgentOptions, "model">),
      // the model the instance was started with (as `keelson resume` continues with the logged one)
      model:
        options.model ??
        logged.find((r) => r.turn >= turn.turn)?.header.config.model ??
        logged[0]?.header.config.model ??
        "replay",
      provider,
      retry: { maxAttempts: 1 },
      invariants: false,
      session,
      plugins: [
        contributors.collector,
        recordedInputs(pluginOptions, ownTools),
        ...contributors.wrap(options.plugins ?? []),
        stepGuard(pluginOptions, ownTools),
      ],
    };
  };
  let unobserve = observeEnds(session, ends);
  try {
    for (const turn of log.turns) {
      let until = input.lineage[segment]?.until;
      while (until !== undefined && turn.startSeq >= until && session.lastTurn > 0) {
        // a fork: the replay session forks at its last turn/end into the next session of the lineage
        await agent?.dispose();
        agent = undefined;
        const next = input.lineage[++segment]!;
        unobserve();
        session = forkSession(session, {
          id: next.id,
          ...(next.cwd === undefined ? {} : { cwd: next.cwd }),
          ...(options.clock === undefined ? {} : { clock: options.clock }),
        });
        unobserve = observeEnds(session, ends);
        fresh = true;
        until = next.until;
      }
      if (turn.newInstance && !fresh) {
        await agent?.dispose();
        agent = undefined;
      }
      agent ??= createAgent(agentOptions(turn));
      fresh = false;
      cursor.turn = turn;
      cursor.prompt = 0;
      await Promise.allSettled(feed(agent, turn, outputOf(turn, firstOfTurn, options)));
      await agent.whenIdle();
      const replayed = ends.get(turn.turn);
      const note = outcomeNote(turn, replayed);
      if (note !== undefined) notes.push(note);
      if (session.lastTurn !== turn.turn) {
        notes.push({
          turn: turn.turn,
          logged: describeReason(turn.reason),
          replayed: `no turn: the replay diverged here (its last turn is ${session.lastTurn}); later turns were not replayed`,
        });
        break;
      }
    }
  } finally {
    unobserve();
    await agent?.dispose();
  }
  return { session, contributors, notes, children: cursor.children };
}

function newSession(input: DriveInput): Session {
  const first = input.lineage[0]!;
  return Session.create(
    { id: first.id, createdAt: input.createdAt, ...(first.cwd === undefined ? {} : { cwd: first.cwd }) },
    input.options.clock === undefined ? {} : { clock: input.options.clock },
  );
}

function observeEnds(session: Session, ends: Map<number, TurnEndReason>): () => void {
  return session.observe((event) => {
    const e = event as AnySessionEvent;
    if (e.type === "turn/end") ends.set(e.data.turn, e.data.reason);
  });
}

/** Queues a logged turn's inputs in one synchronous frame, so they join one turn as they did. */
function feed(agent: Agent, turn: RecordedTurn, output: { output?: unknown }): Promise<unknown>[] {
  const waits: Promise<unknown>[] = [];
  if (turn.trigger === "approval") {
    for (const answer of turn.answers) {
      if (answer.kind === "approval") {
        const { kind: _kind, callId, ...decision } = answer;
        waits.push(agent.decide(callId, decision));
      } else
        waits.push(
          agent.respond(answer.id, { value: answer.value, ...(answer.by === undefined ? {} : { by: answer.by }) }),
        );
    }
    return waits;
  }
  if (turn.trigger === "cancel") {
    agent.cancel(turn.reason?.kind === "aborted" ? turn.reason.reason : "cancelled");
    return waits;
  }
  if (turn.compact) waits.push(agent.compact());
  for (const content of turn.injects) waits.push(agent.inject(content));
  for (const content of turn.steers) waits.push(agent.steer(content));
  for (const prompt of turn.prompts) waits.push(agent.send(prompt.content, output as never));
  const cutShort = turn.reason !== undefined && ["aborted", "disposed", "interrupted"].includes(turn.reason.kind);
  if (waits.length === 0 && cutShort) {
    // cancelled before it logged any input: a placeholder prompt the cancel keeps out of the log
    waits.push(agent.send("(replay placeholder)"));
    agent.cancel(turn.reason?.kind === "aborted" ? turn.reason.reason : STOP_REASON);
  }
  if (turn.outputs.size === 0) for (const content of turn.lateInjects) waits.push(agent.inject(content));
  return waits;
}

/** `send`'s output option for a turn whose logged requests asked for structured output. */
function outputOf(
  turn: RecordedTurn,
  firstOfTurn: ReadonlyMap<number, ReconstructedRequest>,
  options: ReplayOptions,
): { output?: unknown } {
  const format = firstOfTurn.get(turn.turn)?.header.config.output;
  if (format === undefined || options.output !== undefined) return {};
  return { output: options.outputFor?.(turn.turn, format) ?? (format.schema as JsonObject) };
}

/** The logged tools in force at (turn, step): its request's, else the latest request's before it. */
function toolsAt(
  logged: readonly ReconstructedRequest[],
  byKey: ReadonlyMap<number, ReconstructedRequest>,
  turn: number,
  step: number,
): ReconstructedRequest["header"]["tools"] {
  const exact = byKey.get(keyOf(turn, step));
  if (exact !== undefined) return exact.header.tools;
  let before: ReconstructedRequest | undefined;
  for (const r of logged) {
    if (r.turn > turn || (r.turn === turn && r.step > step)) break;
    before = r;
  }
  return before?.header.tools;
}

/** Turn ends the replay reaches by itself where the log's turn was cut short. */
const EXPECTED_CUT: ReadonlySet<string> = new Set(["aborted", "disposed", "interrupted"]);

function outcomeNote(turn: RecordedTurn, replayed: TurnEndReason | undefined): TurnNote | undefined {
  const logged = turn.reason;
  if (logged === undefined || replayed === undefined) return undefined;
  if (EXPECTED_CUT.has(logged.kind) && replayed.kind === "aborted") return undefined;
  if (describeReason(logged) === describeReason(replayed)) return undefined;
  return { turn: turn.turn, logged: describeReason(logged), replayed: describeReason(replayed) };
}

function describeReason(reason: TurnEndReason | undefined): string {
  if (reason === undefined) return "no turn/end";
  if (reason.kind === "error") return `error (${reason.code ?? "no code"}): ${reason.message}`;
  if (reason.kind === "aborted" || reason.kind === "rejected") return `${reason.kind}: ${reason.reason}`;
  return reason.kind;
}
