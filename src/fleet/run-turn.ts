// One claimed turn, start to finish: build the agent from the turn's profile over the stored
// session (`resumeAgent`: the writable load keeps the lease the claim took, and closes a dead
// worker's open turn with crash-repair closers, durably, once), record the log length it starts
// at — the exactly-once mark: from then on, a log that grew means the prompt was logged —, send
// the prompt while the lease is watched, make sure what the turn logged is durable, record the
// outcome, release the session. A turn this worker can no longer record (its claim or its lease
// is gone) is abandoned: left `running` for the next claim of the session to recover. While it
// runs, the turn is registered for following (turn-publication.ts): published on its session's
// live channel if its session was watched when it started or a client announces it.
import { errorMessage, isKeelsonError } from "../errors/index.js";
import type { Agent, AgentOptions, AgentProfile, TurnOutcome } from "../loop/index.js";
import { profileAgentOptions, resumeAgent } from "../loop/index.js";
import type { StoreErrorCode } from "../store/index.js";
import type { PgPool, PostgresSessionStore } from "../store/postgres/index.js";
import type { Session } from "../session/index.js";
import type { AdoptedTurn, ClaimedTurn } from "./claim-turn.js";
import type { LeaseWatch } from "./lease-watch.js";
import type { Publications, TurnPublication } from "./turn-publication.js";
import { notifyTurns } from "./notify-turns.js";
import { CLEAR_SESSION, FINISH_AND_RELEASE, MARK_FINISHED, MARK_STARTED } from "./turn-queries.js";
import type { TurnStatus, WorkerTurnEvent } from "./types.js";

/** What running a turn needs from its worker. */
export interface TurnRunnerContext {
  readonly pool: PgPool;
  readonly owner: string;
  readonly leaseMs: number;
  readonly profiles: Readonly<Record<string, AgentProfile>>;
  /** The store to run on (the worker's current one). */
  readonly store: () => PostgresSessionStore;
  /** Called when a session could not be released from `store` (it is stuck there: use a new store). */
  readonly storeStuck: (store: PostgresSessionStore) => void;
  readonly leases: LeaseWatch;
  /** The worker's followed-turn publications. */
  readonly publications: Publications;
  /** Running agents, for a stop that cancels them. */
  readonly agents: Set<Agent>;
  /** True once the worker was told to cancel its turns: a turn not yet sent is given back instead. */
  readonly cancelling: () => boolean;
  readonly report: (event: WorkerTurnEvent) => void;
  readonly onError: (error: unknown, where: string) => void;
}

/** Refusals of a turn's input by the session (nothing logged): recorded as failed with their code. */
const REFUSED = [
  "unknown-call",
  "not-pending",
  "already-decided",
  "cancelled",
  "refused",
  "invalid-decision",
  "edit-not-allowed",
  "awaits-subagent",
  "awaiting-approval",
  "unknown-request",
  "already-answered",
  "invalid-value",
  "invalid-prompt",
  "prompt-too-large",
];

/** Store failures a later attempt may not see (the server or the connection, not the log). */
const TRANSIENT = [
  "write-failed",
  "unavailable",
  "locked",
  "lease-lost",
  "already-open",
] as const satisfies readonly StoreErrorCode[];

/** The status a finished run records. */
export function statusOf(outcome: TurnOutcome): TurnStatus {
  switch (outcome.reason.kind) {
    case "completed":
    case "max-tokens":
    case "rejected":
    case "awaiting-approval": // the worker's part is done: the lease is released, a decision continues it
    case "awaiting-input":
      return "done";
    case "error":
      return "failed";
    default:
      return "interrupted"; // aborted, disposed, interrupted: the turn ended before its end, in the log
  }
}

export async function runClaimedTurn(context: TurnRunnerContext, claim: ClaimedTurn): Promise<void> {
  const publication = context.publications.open(claim);
  try {
    await runClaimed(context, claim, publication);
  } finally {
    await context.publications.close(claim, publication);
  }
}

async function runClaimed(context: TurnRunnerContext, claim: ClaimedTurn, publication: TurnPublication): Promise<void> {
  const store = context.store();
  const where = `turn ${claim.id} (session ${claim.sessionId})`;
  let agent: Agent;
  try {
    const options = await agentOptions(context, claim);
    // The claim took the lease and read the session's head: the load needs no statement of its own.
    if (claim.head !== undefined) store.adoptLease(claim.sessionId, { epoch: claim.epoch, head: claim.head });
    try {
      agent = await resumeAgent(store, claim.sessionId, options);
    } finally {
      store.adoptLease(claim.sessionId, undefined); // used by the load, or withdrawn if it never ran
    }
  } catch (error) {
    if (isKeelsonError<StoreErrorCode>(error, ...TRANSIENT)) {
      context.onError(error, `starting ${where}`);
      await abandon(context, claim, store);
      return;
    }
    // The log or the profile refuses (corrupt log, bad options): failing again would not help.
    await finish(context, claim, "failed", undefined, errorMessage(error));
    await clearLease(context, claim);
    return;
  }
  context.agents.add(agent);
  try {
    publication.attach(agent);
    await runStarted(context, claim, agent, store, where, publication);
  } finally {
    context.agents.delete(agent);
  }
}

async function runStarted(
  context: TurnRunnerContext,
  claim: ClaimedTurn,
  agent: Agent,
  store: PostgresSessionStore,
  where: string,
  publication: TurnPublication,
): Promise<void> {
  const started = await retried(() =>
    context.pool.query<{ watched: boolean }>(MARK_STARTED, [
      claim.id,
      context.owner,
      claim.attempts,
      agent.session.length,
    ]),
  ).catch((error: unknown) => {
    context.onError(error, `recording the start of ${where}`);
    return undefined;
  });
  if (started?.rows.length !== 1 || context.cancelling()) {
    // The claim was lost, or the worker stops: nothing was sent, so the next claim queues the turn again.
    await release(context, agent, store, where);
    context.report({ kind: "abandoned", turnId: claim.id, sessionId: claim.sessionId, status: "running" });
    return;
  }
  if (started.rows[0]!.watched) publication.follow(); // a follower watches the session's log
  context.report({ kind: "started", turnId: claim.id, sessionId: claim.sessionId, status: "running" });
  const unwatch = context.leases.watch(claim.sessionId, claim.epoch, () =>
    agent.cancel(`worker ${context.owner} lost the session's lease`),
  );
  let outcome: TurnOutcome;
  try {
    const queued = claim.decision;
    outcome = await (queued === undefined
      ? agent.send(claim.prompt)
      : queued.kind === "response"
        ? agent.respond(queued.id, queued)
        : agent.decide(queued.callId, queued));
  } catch (error) {
    unwatch();
    if (isKeelsonError(error, ...REFUSED)) {
      // The session refused the input and logged nothing (a decision that lost its race, a prompt
      // while it awaits approval, one its model's window could never hold): final, not a lost
      // claim — record it and release.
      await finish(context, claim, "failed", undefined, errorMessage(error), "finished", error.code);
      await release(context, agent, store, where);
      return;
    }
    context.onError(error, `running ${where}`); // send rejects only when the agent was disposed: the claim is lost
    await release(context, agent, store, where);
    context.report({ kind: "abandoned", turnId: claim.id, sessionId: claim.sessionId, status: "running" });
    return;
  }
  unwatch();
  if (!(await durable(agent, outcome, context, where))) {
    // What the turn logged is not all committed and cannot be: leave the turn to the next claim,
    // which decides by the log (interrupted if any of it was committed, queued if none was).
    await release(context, agent, store, where);
    context.report({ kind: "abandoned", turnId: claim.id, sessionId: claim.sessionId, status: "running" });
    return;
  }
  const status = statusOf(outcome);
  const stored = { turn: outcome.turn, reason: outcome.reason.kind, saved: true };
  const error = outcome.reason.kind === "error" ? outcome.reason.message : undefined;
  // The store lets go of the session first, keeping its lease — the lease freed, another slot of
  // this worker may claim the session's next turn at once, and its load must find no writer
  // here —, then the end is recorded and the lease given up in one commit.
  const epoch = store.keepLeaseOnRelease(claim.sessionId);
  await release(context, agent, store, where);
  const released = await finish(context, claim, status, stored, error, "finished", undefined, epoch);
  if (epoch !== undefined && !released) await clearLease(context, { sessionId: claim.sessionId, epoch });
}

/**
 * Closes a turn whose worker died after its prompt was logged: the writable load closes the open
 * turn with crash-repair closers (durably, once), then the turn is recorded as the log says it
 * ended — `interrupted` as a rule; `done`/`failed` if its worker had logged the end and died
 * before recording it — and the session is released for its next turn.
 */
export async function closeAdopted(context: TurnRunnerContext, adopted: AdoptedTurn): Promise<void> {
  const store = context.store();
  const where = `turn ${adopted.id} (session ${adopted.sessionId})`;
  let session: Session;
  try {
    ({ session } = await store.load(adopted.sessionId));
  } catch (error) {
    context.onError(error, `closing ${where}`);
    // Left running, the lease left to lapse: the next claim adopts it again after a lease — a
    // backoff, so a session that keeps failing cannot hold up the sessions queued behind it.
    await giveUp(context, store, adopted.sessionId, where);
    return;
  }
  const end = turnEndAfter(session, adopted.startSeq);
  const outcome = end === undefined ? undefined : { turn: end.turn, reason: end.reason.kind, saved: true };
  const status: TurnStatus = end === undefined || end.reason.kind === "interrupted" ? "interrupted" : statusOf(end);
  const error =
    status === "interrupted"
      ? "its worker died or lost the session mid-turn; the turn is in the log (closed by crash repair) and was not run again"
      : end?.reason.kind === "error"
        ? end.reason.message
        : undefined;
  await finish(context, adopted, status, outcome, error, "recovered");
  await giveUp(context, store, adopted.sessionId, where);
}

/** The first `turn/end` at or after `seq` (the one turn a claim's prompt started there); none for a `seq` no log position can be (a row written by hand). */
function turnEndAfter(session: Session, seq: number): TurnOutcome | undefined {
  if (!Number.isSafeInteger(seq) || seq < 0) return undefined;
  for (let i = seq; i < session.length; i++) {
    const event = session.eventAt(i);
    if (event?.type === "turn/end") return event.data as TurnOutcome;
  }
  return undefined;
}

/** The agent options of the claim's profile (factories called now). */
function agentOptions(
  context: TurnRunnerContext,
  claim: ClaimedTurn,
): Promise<Omit<AgentOptions, "store" | "sessionId">> {
  const at = { profile: claim.profile, sessionId: claim.sessionId, turnId: claim.id };
  return profileAgentOptions(context.profiles[claim.profile]!, at);
}

/**
 * Whether everything the turn logged is committed: a flush that failed (a dropped connection)
 * is retried while the lease may still be live — the store kept the batch, and a retry after a
 * lost commit answer recognises its own rows. A lost lease or a moved log cannot be retried.
 */
async function durable(
  agent: Agent,
  outcome: TurnOutcome,
  context: TurnRunnerContext,
  where: string,
): Promise<boolean> {
  if (outcome.saved !== false) return true;
  const deadline = performance.now() + context.leaseMs;
  for (let delay = 25; ; delay = Math.min(delay * 2, 1000)) {
    try {
      await agent.flush();
      return true;
    } catch (error) {
      if (isKeelsonError<StoreErrorCode>(error, "lease-lost", "conflict") || performance.now() + delay > deadline) {
        context.onError(error, `saving ${where}`);
        return false;
      }
    }
    await sleep(delay);
  }
}

/**
 * Records how the turn ended (MARK_FINISHED), then notifies it. With `leaseEpoch` (the epoch this
 * worker holds the session's lease at, its store having let the session go), the same statement
 * also gives the lease up (FINISH_AND_RELEASE); resolves whether it did.
 */
async function finish(
  context: TurnRunnerContext,
  claim: Pick<ClaimedTurn, "id" | "sessionId" | "attempts">,
  status: TurnStatus,
  outcome: { turn: number; reason: string; saved: boolean } | undefined,
  error: string | undefined,
  kind: "finished" | "recovered" = "finished",
  errorCode?: string,
  leaseEpoch?: number,
): Promise<boolean> {
  const values = [
    claim.id,
    context.owner,
    claim.attempts,
    status,
    outcome === undefined ? null : JSON.stringify(outcome),
    error ?? null,
    errorCode ?? null,
  ];
  const recorded = await retried(() =>
    leaseEpoch === undefined
      ? context.pool.query<{ released?: boolean }>(MARK_FINISHED, values)
      : context.pool.query<{ released?: boolean }>(FINISH_AND_RELEASE, [...values, claim.sessionId, leaseEpoch]),
  ).catch((e: unknown) => {
    context.onError(e, `recording the end of turn ${claim.id}`);
    return undefined;
  });
  const kept = recorded?.rows.length === 1;
  // Committed: now its notification (waiting clients, followers), sent on its own (decision 0036).
  if (kept)
    await notifyTurns(context.pool, [`${claim.id} ${status}`], (e) =>
      context.onError(e, `notifying the end of turn ${claim.id} (recorded; clients poll)`),
    );
  context.report({
    kind: kept ? kind : "abandoned",
    turnId: claim.id,
    sessionId: claim.sessionId,
    status: kept ? status : "running",
  });
  return kept && recorded.rows[0]!.released === true;
}

/** Disposes the agent (flush, release the lease); a session the store cannot let go of makes that store unusable. */
async function release(
  context: TurnRunnerContext,
  agent: Agent,
  store: PostgresSessionStore,
  where: string,
): Promise<void> {
  try {
    await agent.dispose();
    return;
  } catch (error) {
    context.onError(error, `releasing ${where}`);
  }
  await giveUp(context, store, agent.session.id, where);
}

/** Makes the store let go of a session it holds; one it must keep (a failing flush it would retry) makes the store unusable. */
async function giveUp(
  context: TurnRunnerContext,
  store: PostgresSessionStore,
  id: string,
  where: string,
): Promise<void> {
  try {
    await store.release(id);
  } catch (error) {
    context.onError(error, `releasing ${where}`);
    // A lost lease or a moved log is given up by release itself; anything else keeps the session open in it.
    if (!isKeelsonError<StoreErrorCode>(error, "lease-lost", "conflict")) context.storeStuck(store);
  }
}

/**
 * Gives a claim up before anything ran: once the lease lapses, the next claim of the session
 * queues the turn again. The lease is left to lapse, not cleared: a backoff, so a session that
 * keeps failing to load cannot hold up the sessions queued behind it.
 */
async function abandon(context: TurnRunnerContext, claim: ClaimedTurn, store: PostgresSessionStore): Promise<void> {
  await giveUp(context, store, claim.sessionId, `turn ${claim.id} (session ${claim.sessionId})`);
  context.report({ kind: "abandoned", turnId: claim.id, sessionId: claim.sessionId, status: "running" });
}

async function clearLease(context: TurnRunnerContext, claim: Pick<ClaimedTurn, "sessionId" | "epoch">): Promise<void> {
  await context.pool
    .query(CLEAR_SESSION, [claim.sessionId, context.owner, claim.epoch])
    .catch((e: unknown) => context.onError(e, `releasing session ${claim.sessionId}`));
}

/** Runs a query again after a dropped connection (twice at most); the statements are guarded, so a repeat is harmless. */
async function retried<T>(run: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (error) {
      if (attempt >= 3) throw error;
      await sleep(50 * attempt);
    }
  }
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
