// Which commands load the provider SDKs' CommonJS builds (src/cli/sdk-builds.ts): only those that
// run no application code. `worker`, `approve` / `deny` / `respond` and `replay` import profiles
// that may make SDK clients of their own, so they keep the ES modules (one copy of each SDK's
// classes).
import { expect, test } from "vitest";
import { COMMANDS } from "../../src/cli/commands.js";
import { commandOf, loadsCommonJsSdks, OWN_CODE_ONLY_COMMANDS } from "../../src/cli/sdk-builds.js";

const argv = (...args: string[]): string[] => ["node", "keelson.js", ...args];

test("exactly run, resume, chat and demo load the CommonJS builds; every other command the ES modules", () => {
  const names = COMMANDS.map((command) => command.name);
  for (const name of OWN_CODE_ONLY_COMMANDS) expect(names).toContain(name); // no stale name
  const commonJs = names.filter((name) => loadsCommonJsSdks(argv(name, "x")));
  expect(commonJs.sort()).toEqual(["chat", "demo", "resume", "run"]);
  for (const name of ["worker", "approve", "deny", "respond", "replay"]) {
    expect(names).toContain(name);
    expect(loadsCommonJsSdks(argv(name, "--profiles", "./profiles.ts"))).toBe(false);
  }
});

test("the command is the first argument that is not an option", () => {
  expect(commandOf(argv("--debug", "run", "hi"))).toBe("run");
  expect(loadsCommonJsSdks(argv("--debug", "run", "hi"))).toBe(true);
  expect(commandOf(argv("--help"))).toBe("");
  expect(loadsCommonJsSdks(argv())).toBe(false);
  expect(loadsCommonJsSdks(argv("worker", "run"))).toBe(false); // an argument named like a command
});
