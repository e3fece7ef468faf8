import type { EpochHeader } from "./types.js";
/** The canonical form of `header`: same content, empty system/tools/prefix removed. */
export declare function canonicalHeader(header: EpochHeader): EpochHeader;
/** Canonical serialization of the canonical form; the identity used for equality and hashing. */
export declare function headerKey(header: EpochHeader): string;
/** Equality of two headers under canonical form and canonical serialization. */
export declare function headerEquals(a: EpochHeader, b: EpochHeader): boolean;
/** SHA-256 (hex) of `headerKey(header)`; equal headers hash equal. */
export declare function headerHash(header: EpochHeader): string;
