import { test } from "vitest";

test.skip("is skipped", () => undefined); // skipped on purpose: the closing line must count it as skipped
