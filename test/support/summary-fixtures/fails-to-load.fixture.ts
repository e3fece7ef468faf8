// A file that fails while it is collected (an import that cannot be resolved): no test is ever known.
import { test } from "vitest";

const missing = "./no-such-module.js";
await import(missing);
test("unreachable", () => undefined);
