import { test } from "vitest";

// a skipped test on purpose: the closing line counts it as skipped
test.skip("is skipped", () => undefined);
