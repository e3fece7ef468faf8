// verifyLog: the structural checks a stored log must pass, as a report (never a throw).
// Structure, payloads, surface ops and replace provenance are checked by seeding a Session
// (the same rules `append` enforces, so a log is valid iff it could have been appended);
// the header fold and request reconstruction are checked on top.
import { HeaderError } from "../header/index.js";
import { Session, SessionError } from "../session/index.js";
import { reconstructRequests } from "./reconstruct.js";
import { ReconstructError } from "./types.js";
const PLACEHOLDER_HEADER = { version: 1, id: "verify", createdAt: 0 };
/**
 * Checks: seq equals index (contiguity), every envelope and payload, every event inside a turn,
 * turn/step numbering and nesting, one `turn/end` per `turn/start` (an open final turn is
 * reported as `open-turn`), tool results paired with calls in their step, replace provenance,
 * header fold totality (no delta before a snapshot, every delta applies), and every step having
 * a header at dispatch. Structural checking stops at the first structural error.
 */
export function verifyLog(events) {
    const issues = [];
    let session;
    try {
        session = Session.fromLog(PLACEHOLDER_HEADER, events);
    }
    catch (e) {
        if (!(e instanceof SessionError))
            throw e;
        issues.push({ code: e.code, message: e.message, ...(e.seq === undefined ? {} : { seq: e.seq }) });
    }
    let requests = 0;
    if (session !== undefined) {
        if (session.openTurn !== null) {
            issues.push({
                code: "open-turn",
                message: `turn ${session.openTurn} has no turn/end (crash repair would close it as interrupted)`,
            });
        }
        try {
            requests = reconstructRequests(session.events).length;
        }
        catch (e) {
            if (!(e instanceof HeaderError) && !(e instanceof ReconstructError))
                throw e;
            issues.push({ code: e.code, message: e.message, ...(e.seq === undefined ? {} : { seq: e.seq }) });
        }
    }
    return { ok: issues.length === 0, events: events.length, turns: session?.lastTurn ?? 0, requests, issues };
}
//# sourceMappingURL=verify.js.map