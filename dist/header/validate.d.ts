import { type EpochHeader, type HeaderDelta } from "./types.js";
/** Asserts an `EpochHeader` shape: config (model, typed sampling fields), system, tools, prefix. */
export declare function validateEpochHeader(raw: unknown, seq?: number): asserts raw is EpochHeader;
/** Asserts a `HeaderDelta` shape. */
export declare function validateHeaderDelta(raw: unknown, seq?: number): asserts raw is HeaderDelta;
