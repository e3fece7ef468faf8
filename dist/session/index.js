// Public API of the session layer (depends on json, messages).
export { deriveEventMessage, isSurfaceEventType } from "./derive.js";
export { isSafeSessionId, validateEnvelope, validateSessionHeader, validateSurfaceOp } from "./envelope.js";
export { SessionError } from "./errors.js";
export { isEventOf, isEventType, validateEventData } from "./event-data.js";
export { epochHeaderProblem, headerDeltaProblem } from "./header-payload.js";
export { forkSeed, forkSession } from "./fork.js";
export { isPairingBalanced, toolPairingBalance } from "./pairing.js";
export { crashRepairClosers } from "./repair.js";
export { Session } from "./session.js";
export { LogStructure } from "./structure.js";
export { Surface } from "./surface.js";
export { SURFACE_EVENT_TYPES } from "./types.js";
//# sourceMappingURL=index.js.map