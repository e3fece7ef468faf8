// The worker's side of following (docs/decisions/0014): a claimed turn is registered with
// `Publications` at its claim; it is published only once followed — its session was watched
// when the turn started (MARK_STARTED says so: every follower watches the session's log) or a
// client announced the session on FOLLOW_CHANNEL while the turn runs. From then until the turn
// ends, `agent.follow()` feeds its events (from its `turn/start`, or from where the log is when
// an announcement arrives mid-turn) into a PublishBatch, and one NOTIFY at a time sends what
// gathered while the previous one was in flight — no timers: the coalescing window is the
// NOTIFY's round trip. A turn nobody follows sends nothing on any live channel.
import type { Agent, TurnEvent } from "../loop/index.js";
import type { PgPool } from "../store/postgres/index.js";
import { liveChannel, PublishBatch } from "./follow-wire.js";

/** Sends every frame in $2 (text[]) on channel $1, in order, in one transaction. */
const PUBLISH = `SELECT pg_notify($1, f) FROM unnest($2::text[]) WITH ORDINALITY AS m (f, n) ORDER BY n`;

export interface PublishedTurn {
  readonly id: string;
  readonly sessionId: string;
  readonly attempts: number;
}

type OnError = (error: unknown, where: string) => void;

export class TurnPublication {
  readonly #pool: PgPool;
  readonly #turn: PublishedTurn;
  readonly #channel: string;
  readonly #onError: OnError;
  #followed = false;
  #agent: Agent | undefined;
  #unobserve: (() => void) | undefined;
  #feed: AsyncIterableIterator<TurnEvent> | undefined;
  #batch: PublishBatch | undefined;
  #pumping: Promise<void> | undefined;
  #sending: Promise<void> | undefined;
  #closed = false;

  constructor(pool: PgPool, turn: PublishedTurn, onError: OnError) {
    this.#pool = pool;
    this.#turn = turn;
    this.#channel = liveChannel(turn.sessionId);
    this.#onError = onError;
  }

  get followed(): boolean {
    return this.#followed;
  }

  /** Someone follows: publish from the turn's start (or from now, when it runs already). */
  follow(): void {
    if (this.#followed || this.#closed) return;
    this.#followed = true;
    this.#start();
  }

  /** The agent that runs the turn (before its prompt is sent). */
  attach(agent: Agent): void {
    this.#agent = agent;
    this.#start();
  }

  #start(): void {
    const agent = this.#agent;
    if (!this.#followed || agent === undefined || this.#closed || this.#feed !== undefined) return;
    if (this.#unobserve !== undefined) return;
    const session = agent.session;
    if (session.openTurn !== null) {
      this.#open(agent, session.length - 1);
      return;
    }
    this.#unobserve = session.observe((event) => {
      if (event.type !== "turn/start") return;
      this.#unobserve?.();
      this.#unobserve = undefined;
      this.#open(agent, event.seq - 1);
    });
  }

  #open(agent: Agent, from: number): void {
    const feed = agent.follow({ from });
    this.#feed = feed;
    this.#batch = new PublishBatch(this.#turn.id, this.#turn.attempts, from);
    this.#pumping = this.#pump(feed, this.#batch);
  }

  async #pump(feed: AsyncIterableIterator<TurnEvent>, batch: PublishBatch): Promise<void> {
    try {
      for await (const event of feed) {
        batch.add(event);
        this.#sending ??= this.#send(batch);
      }
    } catch (error) {
      this.#onError(error, `publishing turn ${this.#turn.id}`);
    }
  }

  /** Sends what the batch holds, one NOTIFY at a time, until it is empty. */
  async #send(batch: PublishBatch): Promise<void> {
    try {
      while (!batch.empty) {
        const frames = batch.drain();
        await this.#pool.query(PUBLISH, [this.#channel, frames]).catch((error: unknown) => {
          // Lost frames are a gap the followers fill from the log (committed events; deltas are gone).
          this.#onError(error, `publishing turn ${this.#turn.id}`);
        });
      }
    } finally {
      this.#sending = undefined;
    }
  }

  /**
   * The turn is over (or abandoned): stops waiting for its start, lets the feed deliver what the
   * log holds up to the turn's end, and waits for the last NOTIFY.
   */
  async close(): Promise<void> {
    this.#closed = true;
    this.#unobserve?.();
    this.#unobserve = undefined;
    // A turn still open here was abandoned mid-way: its feed would wait for an end that is not coming.
    const open = this.#agent !== undefined && this.#agent.session.openTurn !== null;
    if (open) await this.#feed?.return?.();
    await this.#pumping;
    await this.#sending;
  }
}

/** The turns a worker runs, by session, so an announcement finds the one it is about. */
export class Publications {
  readonly #pool: PgPool;
  readonly #onError: OnError;
  readonly #bySession = new Map<string, TurnPublication>();
  readonly #closing = new Set<Promise<void>>();

  constructor(pool: PgPool, onError: OnError) {
    this.#pool = pool;
    this.#onError = onError;
  }

  /** Registers a claimed turn (at its claim, before it starts: an announcement from then on is heard). */
  open(turn: PublishedTurn): TurnPublication {
    const publication = new TurnPublication(this.#pool, turn, this.#onError);
    this.#bySession.set(turn.sessionId, publication);
    return publication;
  }

  /** A client announced that it follows `sessionId`. */
  announced(sessionId: string): void {
    this.#bySession.get(sessionId)?.follow();
  }

  /** The turn is over: unregisters it and finishes its publication. */
  close(turn: PublishedTurn, publication: TurnPublication): Promise<void> {
    if (this.#bySession.get(turn.sessionId) === publication) this.#bySession.delete(turn.sessionId);
    const closing = publication.close();
    this.#closing.add(closing);
    return closing.finally(() => this.#closing.delete(closing));
  }

  /** Waits for every publication being finished (before the worker closes its pool). */
  async drained(): Promise<void> {
    await Promise.all(this.#closing);
  }
}
