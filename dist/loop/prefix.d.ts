import { type Message } from "../messages/index.js";
/** The frozen empty seed every composition starts from. */
export declare function prefixSeed(): readonly Message[];
/** Validates a composed prefix and returns a deep-frozen, detached copy. Throws `LoopError('invalid-prefix')`. */
export declare function freezePrefix(composed: unknown): readonly Message[];
