import type { Session } from "../session/index.js";
import type { EpochHeader, HeaderRecord } from "./types.js";
export declare class HeaderWriter {
    #private;
    /** Folds `session`'s log once; afterwards the writer tracks what it appends itself. */
    constructor(session: Session);
    /** The header in force (the fold after the last record). */
    get current(): EpochHeader | undefined;
    /**
     * Records `header` for the next request and returns the decision that was logged. The header
     * is validated (`HeaderError`, nothing logged) and copied: mutating the caller's object later
     * cannot make the fold disagree with what was used.
     */
    record(header: EpochHeader): HeaderRecord;
}
