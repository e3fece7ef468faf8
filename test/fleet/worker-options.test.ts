// `startWorker` refuses options no worker can run with before it connects or writes anything
// (found from outside: `workerId: ""` threw an untyped TypeError after the worker's row was
// written, left a connection open, and the process never exited). No database is needed: the
// store URL names a port nothing listens on, so a check that came after connecting would fail
// differently.
import { describe, expect, test } from "vitest";
import { FleetError, startWorker } from "../../src/fleet/index.js";
import { ScriptedProvider } from "../../src/llm/core.js";

const profiles = { echo: { provider: new ScriptedProvider([]), model: "scripted:echo" } };
const store = "postgres://nobody@127.0.0.1:1/none";

describe("startWorker's options", () => {
  test.each([
    ["empty", ""],
    ["a space", "a b"],
    ["an escape", "x\u001b[2J"],
    ["not a string", 7],
    ["too long", "w".repeat(201)],
  ])("a workerId that is %s: FleetError('invalid-options') before connecting", async (_name, workerId) => {
    const error = await startWorker({ store, profiles, workerId: workerId as string }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FleetError);
    expect(error).toMatchObject({ code: "invalid-options", message: expect.stringContaining("workerId must be") });
  });

  test("bad numeric options are refused the same way (the first such check)", async () => {
    await expect(startWorker({ store, profiles, concurrency: 0 })).rejects.toMatchObject({ code: "invalid-options" });
  });
});
