// The error base (src/errors): callers match any layer's error by the base and its code, with the
// codes checked against the layer's union when it is named; errorMessage quotes anything thrown.
import { describe, expect, test } from "vitest";
import type { CompactionErrorCode } from "../../src/compaction/index.js";
import { CompactionError } from "../../src/compaction/index.js";
import { errorMessage, isKeelsonError } from "../../src/errors/index.js";
import { StoreError, type StoreErrorCode } from "../../src/store/index.js";

describe("isKeelsonError", () => {
  test("matches an error of any layer by the base, and by one of the given codes", () => {
    const locked = new StoreError("locked", "session s is locked");
    expect(isKeelsonError(locked)).toBe(true);
    expect(isKeelsonError<StoreErrorCode>(locked, "lease-lost", "locked")).toBe(true);
    expect(isKeelsonError<StoreErrorCode>(locked, "conflict")).toBe(false);
    expect(isKeelsonError<CompactionErrorCode>(new CompactionError("no-region", "x"), "no-region")).toBe(true);
    expect(isKeelsonError(new Error("plain"))).toBe(false);
    expect(isKeelsonError(Object.assign(new Error("errno"), { code: "locked" }), "locked")).toBe(false);
  });

  test("checks the codes against the union it is given", () => {
    const error: unknown = new StoreError("closed", "the store is closed");
    // @ts-expect-error — "lockd" is no StoreErrorCode: a renamed or mistyped code does not compile
    expect(isKeelsonError<StoreErrorCode>(error, "lockd")).toBe(false);
    if (isKeelsonError<StoreErrorCode>(error, "closed")) {
      const code: StoreErrorCode = error.code;
      expect(code).toBe("closed");
    }
  });
});

describe("errorMessage", () => {
  test("is an Error's message, and anything else thrown as a string", () => {
    expect(errorMessage(new StoreError("closed", "the store is closed"))).toBe("the store is closed");
    expect(errorMessage(new TypeError("bad"))).toBe("bad");
    expect(errorMessage("a string")).toBe("a string");
    expect(errorMessage(42)).toBe("42");
    expect(errorMessage(undefined)).toBe("undefined");
  });
});
