import { expect, test } from "vitest";

test("passes", () => expect(1).toBe(1));
