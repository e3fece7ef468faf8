// The client side of the queue: enqueue a prompt for a session under a profile name, and await
// the turn's end (LISTEN/NOTIFY on the queue's channel, with a poll as the fallback for a
// notification missed while the connection was down). A turn for a session that does not exist
// yet creates it first (an empty log, header id only — see createSession), so a client needs no
// separate step; `createSession` is there for a client that wants a new id or a cwd in the header.
// `stream` / `streamSession` follow a turn or a session from whichever worker runs it
// (turn-follower.ts, decision 0016).
import { checkStreamOptions, type FollowFeed } from "../loop/index.js";
import { previewJson } from "../json/index.js";
import { isSafeSessionId, Session } from "../session/index.js";
import { isKeelsonError } from "../errors/index.js";
import { StoreError, type StoreErrorCode } from "../store/index.js";
import { checkSchema, inTransaction, type PgPool, PostgresSessionStore } from "../store/postgres/index.js";
import { checkFleetSchema } from "./fleet-schema.js";
import { type FollowSeal, loadFollowSeal } from "./follow-seal.js";
import { RunningTurnWatch } from "./follow-state.js";
import { fleetDbError, type OpenedPool, openPool } from "./fleet-pool.js";
import { ApprovalError, checkedAnswer, pendingInput, pendingRequest } from "../loop/index.js";
import { notifyTurns } from "./notify-turns.js";
import { earlierAnswerRefusal, queuedDecision } from "./queued-decision.js";
import type {
  AwaitOptions,
  DecisionOptions,
  EnqueueOptions,
  NewSessionOptions,
  ResponseOptions,
} from "./client-options.js";
import { canonicalTurnId, recordOf, type TurnRow } from "./turn-record.js";
import { ENQUEUE, ENQUEUE_DECISION, LOCK_SESSION_ANSWERS, OPEN_TURNS, SESSION_EXISTS, TURN } from "./turn-queries.js";
import { checkTurnInput } from "./turn-input.js";
import { StatusPoll } from "./status-poll.js";
import { type FollowOptions, type FollowSessionOptions, refusedFollow, TurnFollower } from "./turn-follower.js";
import { TurnNotifications } from "./turn-notifications.js";
import { DEFAULT_DEAD_AFTER_MS, LIVE_WORKERS, LIVE_WORKERS_SERVING } from "./worker-liveness.js";
import {
  FINISHED_STATUSES,
  type FleetClientOptions,
  FleetError,
  type FleetStore,
  type QueuedDecision,
  type TurnRecord,
} from "./types.js";

/** How often the turns followers wait on are looked at besides the queue's notifications (ms). */
const FOLLOW_POLL_MS = 2000;

/** Opens a client on a migrated database (a URL's pool is closed by `close`; a pool passed in is left open). */
export async function openFleetClient(store: FleetStore, options: FleetClientOptions = {}): Promise<FleetClient> {
  const deadAfterMs = options.deadAfterMs ?? DEFAULT_DEAD_AFTER_MS;
  if (!Number.isSafeInteger(deadAfterMs) || deadAfterMs < 100)
    throw new FleetError(
      "invalid-options",
      `deadAfterMs must be an integer ≥ 100, got ${previewJson(options.deadAfterMs)}`,
    );
  // Two connections LISTEN (the queue's and follow channels; a followed log's tail), the rest query.
  const opened = await openPool(store, { max: 8, applicationName: "keelson-client" });
  return new FleetClient(opened, deadAfterMs);
}

export class FleetClient {
  readonly #opened: OpenedPool;
  readonly #notifications: TurnNotifications;
  #checked: Promise<void> | undefined;
  /** The follow key, read at the first follow (a client that only queues and waits need not read it). */
  #seal: Promise<FollowSeal> | undefined;
  #sessions: PostgresSessionStore | undefined;
  readonly #followers = new Set<TurnFollower>();
  readonly #poll: StatusPoll;
  readonly #deadAfterMs: number;
  #closed = false;

  constructor(opened: OpenedPool, deadAfterMs = DEFAULT_DEAD_AFTER_MS) {
    this.#opened = opened;
    this.#deadAfterMs = deadAfterMs;
    this.#notifications = new TurnNotifications(opened.pool);
    this.#poll = new StatusPoll(opened.pool, this.#notifications, FOLLOW_POLL_MS);
  }

  get pool(): PgPool {
    return this.#opened.pool;
  }

  /** Queues `prompt` as the next turn of `sessionId` (created if absent); returns the turn id. */
  async enqueueTurn(options: EnqueueOptions): Promise<string> {
    const { sessionId, prompt, profile } = checkTurnInput(options); // before anything is written
    await this.#ready();
    await this.#ensureSession(sessionId);
    let queued: { id: string; profile: string };
    try {
      queued = (await this.#opened.pool.query<{ id: string; profile: string }>(ENQUEUE, [sessionId, prompt, profile]))
        .rows[0]!;
    } catch (e) {
      throw fleetDbError(e, this.#opened.label, `queueing a turn for session ${sessionId}`);
    }
    await this.#notifyQueued(queued);
    return queued.id;
  }

  /**
   * Notifies a committed enqueue (`<id> queued <profile>`) by a statement of its own (decision
   * 0036). A failure is not the enqueue's: the turn is queued, and the workers' poll finds it.
   */
  #notifyQueued(queued: { id: string; profile: string }): Promise<void> {
    return notifyTurns(this.#opened.pool, [`${queued.id} queued ${queued.profile}`]);
  }

  /**
   * Queues a decision on a pending approval as a continuation any worker of `profile` runs
   * (`agent.decide` on a resumed agent: it logs the decision and continues the turn). Checked
   * first against the stored log, read-only: a call that is not pending is `ApprovalError` and
   * nothing is queued. While a continuation carrying a decision for the call is open (queued or
   * running), the same decision returns its turn id and a different one is refused at once
   * (`already-decided`), nothing queued (`#continuation`) — also for two enqueues at the same
   * instant: a session's enqueues of decisions and answers are serialized (a transaction-scoped
   * advisory lock), so the second sees the first.
   */
  async enqueueDecision(options: DecisionOptions): Promise<string> {
    const { sessionId, callId, profile } = options;
    checkTurnInput({ sessionId, prompt: `decision on ${callId}`, profile });
    await this.#ready();
    // A subagent's request (`decision.session`) is checked in its own session; the queued session's worker routes it.
    const target = typeof options.decision?.session === "string" ? options.decision.session : sessionId;
    const { session } = await this.#store().load(target, { readOnly: true });
    pendingRequest(session, callId);
    const decision = queuedDecision(callId, options.decision);
    return this.#continuation(sessionId, `${decision.approve ? "approve" : "deny"} ${callId}`, profile, decision);
  }

  /**
   * Queues an answer to a pending question (`ask_user`'s `input/request`) as a continuation any
   * worker of `profile` runs (`agent.respond`); checked read-only first against the stored log
   * and the question's schema (`InputError`, nothing queued).
   */
  async enqueueResponse(options: ResponseOptions): Promise<string> {
    const { sessionId, id, profile } = options;
    checkTurnInput({ sessionId, prompt: `answer to ${id}`, profile });
    await this.#ready();
    const target = typeof options.answer?.session === "string" ? options.answer.session : sessionId;
    const { session } = await this.#store().load(target, { readOnly: true });
    const answer = checkedAnswer(pendingInput(session, id), options.answer);
    return this.#continuation(sessionId, `answer ${id}`, profile, {
      kind: "response",
      ...answer,
      ...(target === sessionId ? {} : { session: target }),
    });
  }

  /**
   * Inserts a queued decision or answer (`label` in the prompt column) and returns its turn id —
   * or, when an open continuation of the session already carries one for the same request, that
   * turn's id if it decides the same (a page reloaded and answered again, a retried request), and
   * `ApprovalError('already-decided')` / `InputError('already-answered')` if it does not.
   */
  async #continuation(sessionId: string, label: string, profile: string, queued: QueuedDecision): Promise<string> {
    const response = queued.kind === "response";
    let row: { id: string; profile: string; earlier: QueuedDecision | null };
    try {
      row = await inTransaction(this.#opened.pool, async (client) => {
        await client.query(LOCK_SESSION_ANSWERS, [sessionId]);
        const { rows } = await client.query<{ id: string; profile: string; earlier: QueuedDecision | null }>(
          ENQUEUE_DECISION,
          [
            sessionId,
            label,
            profile,
            JSON.stringify(queued),
            response ? "response" : "decision",
            response ? queued.id : queued.callId,
            queued.session ?? null,
          ],
        );
        return rows[0]!;
      });
    } catch (e) {
      throw fleetDbError(e, this.#opened.label, `queueing "${label}" for session ${sessionId}`);
    }
    if (row.earlier === null) {
      await this.#notifyQueued(row);
      return row.id;
    }
    const refusal = earlierAnswerRefusal(row.earlier, queued, row.id);
    if (refusal !== undefined) throw refusal;
    return row.id;
  }

  /**
   * The session's open turns — queued, or running — oldest first, as records (a queued decision's
   * or answer's `decision` included: what a page reloaded before a worker logged it has answered,
   * `uiMessagesFromLog(log, { queuedAnswers })`). An unknown session has none.
   */
  async openTurns(sessionId: string): Promise<TurnRecord[]> {
    if (typeof sessionId !== "string" || !isSafeSessionId(sessionId))
      throw new FleetError("not-found", `no session has the id ${previewJson(sessionId, 80)}: not a valid session id`);
    await this.#ready();
    try {
      const { rows } = await this.#opened.pool.query<TurnRow>(OPEN_TURNS, [sessionId]);
      return rows.map(recordOf);
    } catch (e) {
      throw fleetDbError(e, this.#opened.label, `reading the open turns of session ${sessionId}`);
    }
  }

  /**
   * `enqueueDecision`, then `awaitTurn`: resolves with the continued turn's record (the one
   * already queued, for the same decision queued again); a decision refused at once, or when it
   * ran (lost a race: `already-decided`), rejects with that `ApprovalError`.
   */
  async decide(options: DecisionOptions, wait: AwaitOptions = {}): Promise<TurnRecord> {
    const record = await this.awaitTurn(await this.enqueueDecision(options), wait);
    if (record.status === "failed" && record.errorCode !== undefined && record.errorCode !== "awaiting-approval")
      throw new ApprovalError(record.errorCode as ApprovalError["code"], record.error ?? record.errorCode);
    return record;
  }

  /** Creates an empty stored session (no lease kept) and returns its id; `exists` if the id is taken. */
  async createSession(options: NewSessionOptions = {}): Promise<string> {
    await this.#ready();
    const session = Session.create({
      ...(options.id === undefined ? {} : { id: options.id }),
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    });
    const store = this.#store();
    await store.create(session.header);
    await store.release(session.id);
    return session.id;
  }

  async #ensureSession(id: string): Promise<void> {
    const { rows } = await this.#opened.pool.query(SESSION_EXISTS, [id]).catch((e: unknown) => {
      throw fleetDbError(e, this.#opened.label, `looking up session ${id}`);
    });
    if (rows.length > 0) return;
    try {
      await this.createSession({ id });
    } catch (e) {
      if (!(e instanceof StoreError && e.code === "exists")) throw e; // created meanwhile by someone else: fine
    }
  }

  /**
   * How many workers hold their liveness locks now (0: none is alive to claim a queued turn);
   * with `profile`, how many of them serve it (a worker of a Keelson before fleet schema 10 does
   * not say which it serves, and is counted).
   */
  async liveWorkers(options: { readonly profile?: string } = {}): Promise<number> {
    const profile = options.profile;
    if (profile !== undefined && typeof profile !== "string")
      throw new FleetError("invalid-options", `liveWorkers: profile must be a string, got ${typeof profile}`);
    await this.#ready();
    const [sql, values] = profile === undefined ? [LIVE_WORKERS, []] : [LIVE_WORKERS_SERVING, [profile]];
    try {
      return (await this.#opened.pool.query<{ count: number }>(sql, values)).rows[0]?.count ?? 0;
    } catch (e) {
      throw fleetDbError(e, this.#opened.label, "counting the live workers");
    }
  }

  /** The turn's record now; `not-found` for an unknown id. */
  async turn(turnId: string): Promise<TurnRecord> {
    await this.#ready();
    const id = canonicalTurnId(turnId);
    if (id === undefined) throw new FleetError("not-found", `no turn ${previewJson(turnId)} (turn ids are numbers)`);
    let row: TurnRow | undefined;
    try {
      row = (await this.#opened.pool.query<TurnRow>(TURN, [id])).rows[0];
    } catch (e) {
      throw fleetDbError(e, this.#opened.label, `reading turn ${id}`);
    }
    if (row === undefined) throw new FleetError("not-found", `no turn ${id} in ${this.#opened.label}`);
    return recordOf(row);
  }

  /**
   * Resolves with the turn's record once it is done, failed or interrupted. A database that
   * cannot be reached meanwhile (restarted, failed over, a connection cut) is not an answer: the
   * read is retried with a backoff (up to `pollMs` apart) and the LISTEN connection reopened,
   * until the turn finishes or `timeoutMs` passes (`timeout`, naming the last failure).
   * `invalid-options` for a `timeoutMs` or `pollMs` that is not a positive finite number (a `NaN`
   * from `Number(process.env.X)` would wait for ever). With `untilLost`, a running turn whose
   * worker died and that nobody will recover ends the wait with `worker-lost` (as `stream()`).
   */
  async awaitTurn(turnId: string, options: AwaitOptions = {}): Promise<TurnRecord> {
    for (const key of ["timeoutMs", "pollMs"] as const) {
      const value: unknown = options[key];
      if (value !== undefined && !(typeof value === "number" && Number.isFinite(value) && value > 0))
        throw new FleetError(
          "invalid-options",
          `${key} must be a positive number of milliseconds, got ${String(value)}`,
        );
    }
    if (options.untilLost !== undefined && typeof options.untilLost !== "boolean")
      throw new FleetError("invalid-options", `untilLost must be true or false, got ${previewJson(options.untilLost)}`);
    const id = canonicalTurnId(turnId); // undefined: no turn has it (turn() below says not-found)
    const deadline = options.timeoutMs === undefined ? Number.POSITIVE_INFINITY : performance.now() + options.timeoutMs;
    const pollMs = options.pollMs ?? 1000;
    let wake: (() => void) | undefined;
    let notified = false;
    const unsubscribe = this.#notifications.subscribe((changed) => {
      if (changed !== id) return;
      notified = true;
      wake?.();
    });
    let failures = 0;
    let lastFailure: FleetError | undefined;
    const watch = options.untilLost === true ? new RunningTurnWatch(this.#deadAfterMs) : undefined;
    try {
      await this.#notifications.listening(); // before the first look: a change after it is notified
      for (;;) {
        notified = false;
        let record: TurnRecord | undefined;
        try {
          record = await this.turn(turnId);
          failures = 0;
        } catch (error) {
          if (!(error instanceof FleetError && error.code === "unavailable")) throw error;
          failures++;
          lastFailure = error; // the server is away: look again after a backoff
        }
        if (record !== undefined && FINISHED_STATUSES.includes(record.status)) return record;
        const verdict =
          watch !== undefined && record?.status === "running"
            ? await watch.look(this.#opened.pool, this.#opened.label, record.id)
            : undefined;
        if (verdict?.kind === "lost") throw new FleetError("worker-lost", verdict.message);
        const left = deadline - performance.now();
        if (left <= 0)
          throw new FleetError(
            "timeout",
            record === undefined
              ? `turn ${id}: no answer from the database for ${options.timeoutMs} ms (${lastFailure?.message ?? "unreachable"})`
              : `turn ${id} is still ${record.status} after ${options.timeoutMs} ms`,
          );
        if (options.signal?.aborted) throw options.signal.reason;
        if (notified) continue; // changed while we read it: look again at once
        const delay = Math.min(
          failures === 0 ? pollMs : Math.min(pollMs, 25 * 2 ** Math.min(failures, 10)),
          verdict?.recheckMs ?? Number.POSITIVE_INFINITY,
        );
        await new Promise<void>((resolve) => {
          const done = (): void => {
            clearTimeout(timer);
            options.signal?.removeEventListener("abort", done);
            wake = undefined;
            resolve();
          };
          const timer = setTimeout(done, Math.min(delay, left));
          options.signal?.addEventListener("abort", done, { once: true });
          wake = done;
        });
        // Reopens a lost LISTEN connection in the background; until it is back the poll carries on
        // (not awaited: a server that does not answer must not hold the wait past its deadline).
        void this.#notifications.listening();
      }
    } finally {
      unsubscribe();
    }
  }

  /**
   * Throws what would refuse `stream()` / `streamSession()` here — the schema not migrated or
   * newer (`not-migrated`, `newer-version`), a login that may not read the fleet's follow key
   * (`permission-denied`, decision 0037), the database away (`unavailable`) — and reads nothing
   * else, writes nothing: ask it before queueing a turn to follow, so a refused follow leaves
   * nothing queued (`keelson send --follow` does).
   */
  async checkFollow(): Promise<void> {
    await this.#followSeal();
  }

  /**
   * The events of turn `turnId` as `agent.stream()` yields them, from whichever worker runs it, in
   * log order: from its `turn/start` (the committed events so far from the log, then live) to its
   * `turn-end` as the log holds it (without `outcome`: the worker has it; `turn()` has the record).
   * A queued turn is waited for. Breaking the iteration stops following, never the turn. Errors
   * (thrown by the iteration): `not-found` (no such turn), `not-run` (it ended without running:
   * its profile failed, too many attempts), `worker-lost` (its worker died and no worker recovered
   * it within a lease), `closed`, `unavailable` (the database, while starting). Decision 0016.
   */
  stream(turnId: string, options: FollowOptions = {}): FollowFeed {
    // A turn id given as a number or with leading zeros (as `turn()` and `awaitTurn()` take it) is the same turn.
    const id = canonicalTurnId(turnId);
    // No turn has this id (2 ** 53 + 2, "-1", 5,000 digits): said from the first next(), without asking the database.
    if (id === undefined)
      return refusedFollow(
        new FleetError("not-found", `no turn ${previewJson(turnId, 80)} (turn ids are integers ≥ 0 below 10^18)`),
      );
    return this.#follow({ kind: "turn", turnId: id }, options);
  }

  /**
   * The events of session `sessionId` after seq `from` (default -1: all of it), then its turns as
   * they run — queued ones included — from whichever worker; ends when the session has no open
   * turn and everything logged is delivered. `not-found` for an unknown session,
   * `position-beyond-log` for a `from` at or past the end of the log (`invalid-position`:
   * not an integer ≥ -1), otherwise as `stream`.
   */
  streamSession(sessionId: string, options: FollowSessionOptions = {}): FollowFeed {
    if (typeof sessionId !== "string" || !isSafeSessionId(sessionId)) {
      // No session has this id (a NUL, a path, 5,000 characters): said from the first next(), like an unknown one.
      return refusedFollow(
        new FleetError("not-found", `no session has the id ${previewJson(sessionId, 80)}: not a valid session id`),
      );
    }
    // `from: null` is not "from the start": only an absent `from` is.
    return this.#follow({ kind: "session", sessionId, from: options.from === undefined ? -1 : options.from }, options);
  }

  #follow(
    target: { kind: "turn"; turnId: string } | { kind: "session"; sessionId: string; from: number },
    options: FollowOptions,
  ): FollowFeed {
    if (this.#closed) throw new FleetError("closed", "the fleet client is closed");
    checkStreamOptions(options, (message) => new FleetError("invalid-options", message)); // a NaN bound lifts it
    const follower = new TurnFollower(
      {
        pool: this.#opened.pool,
        label: this.#opened.label,
        deadAfterMs: this.#deadAfterMs,
        notifications: this.#notifications,
        poll: this.#poll,
        store: () => this.#store(),
        seal: () => this.#followSeal(),
        forget: (f) => this.#followers.delete(f),
      },
      target,
      options,
    );
    this.#followers.add(follower);
    return follower;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const closed = new FleetError("closed", "the fleet client was closed while following");
    await Promise.all([...this.#followers].map((f) => f.shut(closed)));
    this.#poll.close();
    await this.#notifications.close();
    await this.#sessions?.close().catch(() => undefined);
    await this.#opened.close();
  }

  #store(): PostgresSessionStore {
    this.#sessions ??= new PostgresSessionStore({ pool: this.#opened.pool });
    return this.#sessions;
  }

  #followSeal(): Promise<FollowSeal> {
    this.#seal ??= (async () => {
      await this.#ready();
      try {
        return await loadFollowSeal(this.#opened.pool);
      } catch (e) {
        this.#seal = undefined; // read again next time
        throw fleetDbError(e, this.#opened.label, "reading the fleet's follow key");
      }
    })();
    return this.#seal;
  }

  #ready(): Promise<void> {
    if (this.#closed) return Promise.reject(new FleetError("closed", "the fleet client is closed"));
    this.#checked ??= (async () => {
      try {
        await checkSchema(this.#opened.pool, this.#opened.label);
        await checkFleetSchema(this.#opened.pool, this.#opened.label);
      } catch (e) {
        this.#checked = undefined; // checked again next time (the database may be migrated meanwhile)
        // The store's schema check says it as a StoreError: a fleet client's callers catch FleetError.
        if (isKeelsonError<StoreErrorCode>(e, "not-migrated", "newer-version"))
          throw new FleetError(e.code as "not-migrated" | "newer-version", e.message, { cause: e });
        throw fleetDbError(e, this.#opened.label, "checking the schema");
      }
    })();
    return this.#checked;
  }
}

/** Queues one turn on `store` (opening and closing a client); returns its id. */
export async function enqueueTurn(options: EnqueueOptions & { readonly store: FleetStore }): Promise<string> {
  const client = await openFleetClient(options.store);
  try {
    return await client.enqueueTurn(options);
  } finally {
    await client.close();
  }
}

/** Awaits turn `id` on `options.store` (opening and closing a client); resolves with its finished record. */
export async function awaitTurn(
  id: string,
  options: AwaitOptions & { readonly store: FleetStore },
): Promise<TurnRecord> {
  const client = await openFleetClient(options.store);
  try {
    return await client.awaitTurn(id, options);
  } finally {
    await client.close();
  }
}
