import { type EpochHeader, type HeaderDelta, type SystemDelta, type ToolsDelta } from "./types.js";
import type { ToolSchema } from "../llm/core.js";
/** Line trim from `prev` to `next`: common leading and trailing lines kept, the middle inserted. */
export declare function diffSystem(prev: string | undefined, next: string | undefined): SystemDelta;
export declare function applySystemDelta(system: string | undefined, delta: SystemDelta): string | undefined;
/** Tools keyed by name: which were removed, which changed (compared canonically), which added. */
export declare function diffTools(prev?: readonly ToolSchema[], next?: readonly ToolSchema[]): ToolsDelta;
export declare function applyToolsDelta(tools: readonly ToolSchema[] | undefined, delta: ToolsDelta): readonly ToolSchema[];
/** The delta from `prev` to `next` (both taken canonically); `undefined` when they are equal. */
export declare function diffHeader(prev: EpochHeader, next: EpochHeader): HeaderDelta | undefined;
/** Applies `delta` to `header` and returns the canonical result. Throws `HeaderError('delta-mismatch')`. */
export declare function applyHeaderDelta(header: EpochHeader, delta: HeaderDelta): EpochHeader;
