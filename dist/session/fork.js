// Fork: a child session seeded with the parent's log up to an inclusive `turn/end` boundary.
import { randomUUID } from "node:crypto";
import { SessionError } from "./errors.js";
import { Session } from "./session.js";
/**
 * The seed a fork at `atSeq` copies: the events `0..atSeq`. Throws `SessionError` with code
 * `fork-boundary-out-of-range`, `fork-boundary-not-turn-end` or `fork-no-completed-turn`.
 */
export function forkSeed(events, atSeq) {
    let boundary = atSeq;
    if (boundary === undefined) {
        for (let i = events.length - 1; i >= 0; i--) {
            if (events[i].type === "turn/end") {
                boundary = i;
                break;
            }
        }
        if (boundary === undefined)
            throw new SessionError("fork-no-completed-turn", "cannot fork: the log has no turn/end yet");
    }
    if (!Number.isSafeInteger(boundary) || boundary < 0 || boundary >= events.length) {
        throw new SessionError("fork-boundary-out-of-range", `fork boundary ${boundary} is outside the log (0..${events.length - 1})`);
    }
    const event = events[boundary];
    if (event.type !== "turn/end") {
        throw new SessionError("fork-boundary-not-turn-end", `fork boundary seq ${boundary} is a ${event.type}, not a turn/end`, boundary);
    }
    return events.slice(0, boundary + 1);
}
/** A new session whose log is the parent's up to the boundary, with `parentSession` and `seedLength`. */
export function forkSession(parent, options = {}) {
    const seed = forkSeed(parent.events, options.atSeq);
    const cwd = options.cwd ?? parent.header.cwd;
    const header = {
        version: 1,
        id: options.id ?? randomUUID(),
        createdAt: options.createdAt ?? (options.clock ?? Date.now)(),
        ...(cwd === undefined ? {} : { cwd }),
        parentSession: parent.id,
        seedLength: seed.length,
    };
    return Session.fromLog(header, seed, options);
}
//# sourceMappingURL=fork.js.map