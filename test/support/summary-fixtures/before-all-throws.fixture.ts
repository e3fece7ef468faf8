// A file whose set-up throws (as the browser tests did without a browser): its tests never run.
import { beforeAll, expect, test } from "vitest";

beforeAll(() => {
  throw new Error("set-up failed");
});
test("never runs", () => expect(1).toBe(1));
