import { type EpochHeader, type HeaderRecord } from "./types.js";
export interface HeaderDecisionInput {
    /** The header folded from the log so far (`undefined` if the log has none). */
    readonly folded: EpochHeader | undefined;
    /** The header the request will actually use. */
    readonly next: EpochHeader;
    /** True for the first request of a loop instance. */
    readonly firstOfInstance: boolean;
}
export declare function decideHeaderRecord({ folded, next, firstOfInstance }: HeaderDecisionInput): HeaderRecord;
