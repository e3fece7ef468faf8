// Which worker claims an enqueued turn when several have idle slots (#20 F21). Every worker
// hears every enqueue; if each claimed at once, one would win and the others would each pay a
// claim transaction for nothing — claims, and CPU, per turn growing with the number of workers.
// So a worker claims at once only while it is "eager": it won the last race it took part in
// (the turn's `running` notification names the claiming worker; a worker alone always wins). A
// worker that lost waits a random 0–jitterMs first and gives up when the turn's `running`
// notification comes before its timer (another worker took it); if its timer fires first it
// claims, and becomes eager again if it wins. Idle workers thus settle on about one eager
// claimer; when that one has no free slot it does not race, a staggered one takes the turn and
// becomes eager too (the next race sorts them out). Nothing here decides correctness — the claim
// transaction does (SKIP LOCKED, one running turn per session); this only avoids wasted claims.

/** How long, at most, a worker that lost its last race waits before claiming an enqueued turn. */
export const CLAIM_JITTER_MS = 50;
/** Races remembered (a turn nobody claims now — its session is busy — is forgotten after this many). */
const TRACKED = 256;

interface Race {
  timer: NodeJS.Timeout | undefined;
  /** Whether this worker claimed for it (at once, or when its timer fired). */
  tried: boolean;
}

export class ClaimRace {
  readonly #me: string;
  readonly #jitterMs: number;
  readonly #claim: () => void;
  readonly #races = new Map<string, Race>();
  #eager = true;

  /** `claim` wakes an idle slot; `me` is this worker's id (as `running` notifications name it). */
  constructor(me: string, claim: () => void, options: { readonly jitterMs?: number } = {}) {
    this.#me = me;
    this.#claim = claim;
    this.#jitterMs = options.jitterMs ?? CLAIM_JITTER_MS;
  }

  get eager(): boolean {
    return this.#eager;
  }

  /** Turn `id` was queued for one of our profiles, and a slot is free to claim it. */
  queued(id: string): void {
    if (this.#races.has(id)) return;
    const race: Race = { timer: undefined, tried: this.#eager };
    if (this.#eager) this.#claim();
    else
      race.timer = setTimeout(() => {
        race.timer = undefined;
        race.tried = true;
        this.#claim();
      }, Math.random() * this.#jitterMs);
    this.#races.set(id, race);
    if (this.#races.size > TRACKED) this.#forget(this.#races.keys().next().value!);
  }

  /** Turn `id` is now `running` under worker `by`: whoever took part in its race won or lost. */
  running(id: string, by: string | undefined): void {
    const race = this.#races.get(id);
    if (race === undefined) return;
    this.#forget(id);
    if (by === this.#me) this.#eager = true;
    else if (race.tried && by !== undefined) this.#eager = false;
  }

  /** Turn `id` left the queue otherwise: nothing to race for. */
  gone(id: string): void {
    if (this.#races.has(id)) this.#forget(id);
  }

  close(): void {
    for (const id of [...this.#races.keys()]) this.#forget(id);
  }

  #forget(id: string): void {
    clearTimeout(this.#races.get(id)?.timer);
    this.#races.delete(id);
  }
}
