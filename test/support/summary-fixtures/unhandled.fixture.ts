// A test that passes while leaving an error the runner reports as unhandled.
import { test } from "vitest";

test("leaves an unhandled rejection", async () => {
  void Promise.reject(new Error("nobody awaited me"));
  await new Promise((resolve) => setImmediate(resolve));
});
