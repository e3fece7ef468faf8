// The log version of a fork stored by reference (decision record 0009; seed-reference.ts reads
// and writes such logs). A module of its own so that what only compares versions — the summary
// index records the highest log version this Keelson reads — loads neither the codec nor the
// session layer (the light listing entry, listing.ts, reads the index).

/** The log version of a file whose seed is a reference (`seedFrom`) rather than copied lines. */
export const REFERENCING_LOG_VERSION = 2;
