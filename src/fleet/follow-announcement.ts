// Follow announcements (decision 0037): a client that follows a session tells the fleet's workers
// on FOLLOW_CHANNEL, sealed with the follow key, so only holders of the key can say or learn which
// session is followed. The sealed text is `<ms since the epoch> <session id>` — plus ` fresh` when
// the client was listening on the session's live channel before the turn was claimed, so it hears
// the publication's every message and needs no restart of it (decision 0038) —, and a worker
// believes an announcement once, and only within ANNOUNCEMENT_WINDOW_MS of that time (either
// way: the client's clock may run ahead): a login of the database that captured one can neither
// replay it later nor repeat it now to make a worker publish a session's turns to nobody. A
// worker's and a client's clocks may differ by up to the window.

/** How far an announcement's time may be from the worker's clock when it hears it. */
export const ANNOUNCEMENT_WINDOW_MS = 120_000;
/** Announcements a worker remembers (within the window) to refuse a repeat of. */
const REMEMBERED = 4096;

/**
 * The clear text of an announcement that `sessionId` is followed, made at `nowMs`; `fresh`: the
 * client listened before the turn was claimed (it lacks nothing of the publication).
 */
export const announcementText = (sessionId: string, nowMs: number, fresh = false): string =>
  `${Math.floor(nowMs)} ${sessionId}${fresh ? " fresh" : ""}`;

/** What a believed announcement says. */
export interface Announcement {
  readonly sessionId: string;
  /** The client listened before the turn was claimed: a publication under way needs no restart for it. */
  readonly fresh: boolean;
}

/** What a worker believes of the announcements it hears. */
export class AnnouncementCheck {
  readonly #now: () => number;
  /** Payloads believed, with their announcement times, in the order heard. */
  readonly #seen = new Map<string, number>();

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /**
   * What `text` (opened from `payload`) announces, or undefined: not an announcement's shape,
   * outside the window, or a payload already believed.
   */
  accept(payload: string, text: string): Announcement | undefined {
    const space = text.indexOf(" ");
    if (space <= 0 || space === text.length - 1) return undefined;
    const at = Number(text.slice(0, space));
    if (!Number.isSafeInteger(at)) return undefined;
    const now = this.#now();
    if (Math.abs(now - at) > ANNOUNCEMENT_WINDOW_MS) return undefined;
    for (const [seen, seenAt] of this.#seen) {
      if (now - seenAt <= ANNOUNCEMENT_WINDOW_MS && this.#seen.size < REMEMBERED) break;
      this.#seen.delete(seen); // out of the window (a repeat would be refused by its time), or over the bound
    }
    if (this.#seen.has(payload)) return undefined;
    this.#seen.set(payload, at);
    const rest = text.slice(space + 1);
    const fresh = rest.endsWith(" fresh");
    return { sessionId: fresh ? rest.slice(0, -" fresh".length) : rest, fresh };
  }
}
