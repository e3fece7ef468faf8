// The worker's side of following (docs/decisions/0016): a claimed turn is registered with
// `Publications` at its claim; it is published only once followed — its session was watched
// when the turn started (MARK_STARTED says so: a session follower watches the session's log) or
// a client announced the session on FOLLOW_CHANNEL (a turn follower does when it sees its turn
// claimed; an announcement heard shortly before the claim is registered counts). From then until the turn
// ends, `agent.follow()` feeds its events — from its `turn/start`, also when an announcement
// arrives mid-turn (the turn's first events may not be durable yet) — into a PublishBatch, which
// the worker's LiveSender sends with the next NOTIFY statement (live-sender.ts: one in flight per
// worker, no timers). Another announcement while the turn is published — a second follower, or
// one that missed messages — restarts the publication: a new feed from the turn's start, its first
// message marked a restart, so the newcomer gets the turn so far and the step so far (each open
// block's start and text) and every follower takes only what it lacks (follow-blocks.ts); the
// announcements that arrive before that message is sent share it, and one heard before the
// publication's first message was sent needs none. A turn nobody follows sends
// nothing on any live channel. Messages go sealed
// for their channel and announcements are opened with the fleet's follow key (follow-seal.ts).
import type { Agent, FollowFeed, TurnEvent } from "../loop/index.js";
import type { Session } from "../session/index.js";
import type { PgPool } from "../store/postgres/index.js";
import { AnnouncementCheck } from "./follow-announcement.js";
import type { FollowSeal } from "./follow-seal.js";
import { FOLLOW_CHANNEL, liveChannel, PublishBatch } from "./follow-wire.js";
import { type LiveSource, LiveSender } from "./live-sender.js";

export interface PublishedTurn {
  readonly id: string;
  readonly sessionId: string;
  readonly attempts: number;
}

type OnError = (error: unknown, where: string) => void;

export class TurnPublication implements LiveSource {
  readonly channel: string;
  readonly #sender: LiveSender;
  readonly #turn: PublishedTurn;
  readonly #onError: OnError;
  readonly #seal: FollowSeal;
  #followed = false;
  #agent: Agent | undefined;
  #unobserve: (() => void) | undefined;
  #feed: FollowFeed | undefined;
  #batch: PublishBatch | undefined;
  #pumping: Promise<void> | undefined;
  #closed = false;

  constructor(sender: LiveSender, turn: PublishedTurn, onError: OnError, seal: FollowSeal) {
    this.#sender = sender;
    this.#turn = turn;
    this.channel = liveChannel(turn.sessionId);
    this.#onError = onError;
    this.#seal = seal;
  }

  get followed(): boolean {
    return this.#followed;
  }

  /**
   * Someone follows: publish from the turn's start (or from now, when it runs already); when it is
   * published already, from its start again (a follower that came later lacks what was sent) —
   * unless it is `fresh` (it listened before the turn was claimed: it hears every message).
   */
  follow(fresh = false): void {
    if (this.#closed) return;
    if (this.#followed) {
      if (!fresh) this.#restart();
      return;
    }
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
      // Followed mid-turn: from the turn's start all the same. Its first events may not be in the
      // log yet (a step is flushed when it ends), so a follower joining now could read none of
      // them, and would hold every live event behind that gap until the step's flush.
      this.#open(agent, openTurnStart(session) - 1);
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
    const channel = this.channel;
    this.#batch = new PublishBatch(
      this.#turn.id,
      this.#turn.attempts,
      from,
      (text) => this.#seal.seal(channel, text),
      () => feed.durableThrough(),
    );
    this.#pumping = this.#pump(feed, this.#batch);
  }

  /** Publishes the open turn again from its start, after what was sent (one restart per message). */
  #restart(): void {
    const agent = this.#agent;
    const batch = this.#batch;
    const old = this.#feed;
    // Not started yet, or nothing sent yet (its first message will be from the turn's start, sent
    // after this announcement was heard, so after its follower LISTENed), or a restart not sent
    // yet: that one serves.
    if (agent === undefined || batch === undefined || old === undefined) return;
    if (!batch.drainedAny || batch.restarting) return;
    if (agent.session.openTurn === null) return; // its end is in the log
    const from = openTurnStart(agent.session) - 1;
    const feed = agent.follow({ from });
    this.#feed = feed; // the old pump stops at its next event
    void old.return?.();
    batch.restart(from);
    const pumping = this.#pumping;
    this.#pumping = Promise.all([pumping, this.#pump(feed, batch)]).then(() => undefined);
  }

  async #pump(feed: AsyncIterableIterator<TurnEvent>, batch: PublishBatch): Promise<void> {
    try {
      for await (const event of feed) {
        if (this.#feed !== feed) return; // restarted: the new feed publishes from here
        batch.add(event);
        this.#sender.kick(this);
      }
    } catch (error) {
      this.#onError(error, `publishing turn ${this.#turn.id}`);
    }
  }

  /** The frames of what gathered since the last call (LiveSource). */
  frames(): string[] {
    const batch = this.#batch;
    return batch === undefined || batch.empty ? [] : batch.drain();
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
    await this.#sender.sent(this);
  }
}

/**
 * How long an announcement for a session this worker runs nothing in counts: a follower announces
 * when it hears its turn claimed, which may reach this worker just before its claim is registered.
 */
const HEARD_MS = 5000;
/** Announcements kept for sessions not running here (the oldest go first). */
const HEARD_MAX = 4096;

/** The turns a worker runs, by session, so an announcement finds the one it is about. */
export class Publications {
  readonly #sender: LiveSender;
  readonly #onError: OnError;
  readonly #seal: FollowSeal;
  readonly #announcements: AnnouncementCheck;
  readonly #bySession = new Map<string, TurnPublication>();
  /** Announcements of sessions running nothing here: when each was heard (performance.now). */
  readonly #heard = new Map<string, number>();
  readonly #closing = new Set<Promise<void>>();

  constructor(pool: PgPool, onError: OnError, seal: FollowSeal) {
    this.#sender = new LiveSender(pool, (error) => onError(error, "publishing followed turns"));
    this.#onError = onError;
    this.#seal = seal;
    this.#announcements = new AnnouncementCheck();
  }

  /** Registers a claimed turn (at its claim, before it starts: an announcement from then on is heard). */
  open(turn: PublishedTurn): TurnPublication {
    const publication = new TurnPublication(this.#sender, turn, this.#onError, this.#seal);
    this.#bySession.set(turn.sessionId, publication);
    const heard = this.#heard.get(turn.sessionId);
    if (heard !== undefined) {
      this.#heard.delete(turn.sessionId);
      if (performance.now() - heard <= HEARD_MS) publication.follow();
    }
    return publication;
  }

  /**
   * A payload heard on FOLLOW_CHANNEL: an announcement when it opens with the follow key and is
   * fresh and new (follow-announcement.ts); anything else is dropped. One that does not open may
   * be sealed under a rotated key: the seal reads the key again, and a new key opens it then.
   */
  hear(payload: string): void {
    const text = this.#seal.open(FOLLOW_CHANNEL, payload);
    if (text !== undefined) this.#accept(payload, text);
    else
      void this.#seal.reloadKey().then((reload) => {
        const opened = reload === "changed" ? this.#seal.open(FOLLOW_CHANNEL, payload) : undefined;
        if (opened !== undefined) this.#accept(payload, opened);
      });
  }

  #accept(payload: string, text: string): void {
    const announcement = this.#announcements.accept(payload, text);
    if (announcement !== undefined) this.announced(announcement.sessionId, announcement.fresh);
  }

  /** A client announced that it follows `sessionId` (`fresh`: it listened before the turn was claimed). */
  announced(sessionId: string, fresh = false): void {
    const publication = this.#bySession.get(sessionId);
    if (publication !== undefined) {
      publication.follow(fresh);
      return;
    }
    this.#heard.delete(sessionId); // re-inserted: the map stays in the order heard
    this.#heard.set(sessionId, performance.now());
    if (this.#heard.size > HEARD_MAX) this.#heard.delete(this.#heard.keys().next().value!);
  }

  /** The turn is over: unregisters it and finishes its publication. */
  close(turn: PublishedTurn, publication: TurnPublication): Promise<void> {
    if (this.#bySession.get(turn.sessionId) === publication) this.#bySession.delete(turn.sessionId);
    const closing = publication.close();
    this.#closing.add(closing);
    return closing.finally(() => this.#closing.delete(closing));
  }

  /** Waits for every publication being finished, then gives the sender's connection back (before the worker closes its pool). */
  async stop(): Promise<void> {
    await Promise.all(this.#closing);
    await this.#sender.close();
  }
}

/** The seq of the open turn's `turn/start` (`session` has an open turn: it is in the log). */
function openTurnStart(session: Session): number {
  for (let seq = session.length - 1; seq > 0; seq--) if (session.eventAt(seq)?.type === "turn/start") return seq;
  return 0;
}
