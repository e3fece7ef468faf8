import type { SessionEvent, SessionHeader, SurfaceOp } from "./types.js";
/** Asserts `raw` is a well-formed event envelope with seq `expectedSeq` and a valid payload. */
export declare function validateEnvelope(raw: unknown, expectedSeq: number): asserts raw is SessionEvent;
/** Asserts `op` is `'append'` or `{ op: 'replace', start, end }` with integer positions. */
export declare function validateSurfaceOp(op: unknown, seq?: number): asserts op is SurfaceOp;
/** Asserts a session header: version 1, a safe id, createdAt, optional cwd/parentSession/seedLength. */
export declare function validateSessionHeader(raw: unknown): asserts raw is SessionHeader;
/** True for ids `validateSessionHeader` accepts (letters, digits, `.`, `_`, `-`; ≤ 128). */
export declare function isSafeSessionId(id: string): boolean;
