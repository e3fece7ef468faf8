// A store that cannot save is never claimed saved (issue #12 D2/D3): `keelson chat` and
// `keelson run` over a KEELSON_HOME where no session file can be created (a regular file sits
// where the sessions directory should be) report the failure and exit non-zero, and chat never
// prints "saved in".
import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, expect, test } from "vitest";
import { chatScript } from "./chat-process.js";
import { keelson, tempHome } from "./run-keelson.js";

let home: string;
beforeEach(async () => {
  home = await tempHome();
  await mkdir(join(home, "work"));
  await writeFile(join(home, "sessions"), "not a directory\n"); // every create fails with ENOTDIR
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

test("chat over a store that cannot create the session exits non-zero and never claims a save", async () => {
  const { code, stdout } = await chatScript(home, [], ["hello", "/exit"], { cwd: join(home, "work") });
  expect(stdout).not.toContain("saved in");
  expect(stdout).toMatch(/session [0-9a-f-]{36} is NOT saved/);
  expect(code).not.toBe(0);
});

test("run over a store that cannot create the session exits non-zero with the reason", async () => {
  const result = await keelson(home, ["run", "hello"]);
  expect(result.code).not.toBe(0);
  expect(result.stderr).toMatch(/EEXIST|ENOTDIR|not a directory/);
  expect(result.stdout).not.toContain("saved");
});
