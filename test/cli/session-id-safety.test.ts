// Issue #12 (CLI): "no such session" is one thing for every command that takes a session id —
// exit 2 (bad input), one line on stderr, the same words, nothing written. `resume` used to exit
// 1 where `show` exited 2.
import { readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keelson, sessionIdOf, tempHome } from "./run-keelson.js";

let home: string;

beforeAll(async () => {
  home = await tempHome();
  sessionIdOf(await keelson(home, ["run", "hello"])); // a store with one real session in it
}, 60_000);
afterAll(() => rm(home, { recursive: true, force: true }));

/** Every command that takes a session id, with that id in place. */
const COMMANDS: readonly [string, (id: string) => string[]][] = [
  ["show", (id) => ["show", id]],
  ["requests", (id) => ["requests", id]],
  ["verify", (id) => ["verify", id]],
  ["cache", (id) => ["cache", id]],
  ["resume", (id) => ["resume", id, "hi"]],
  ["fork", (id) => ["fork", id]],
  ["chat --resume", (id) => ["chat", "--resume", id]],
];

const IDS: readonly [string, string, (file: string) => string][] = [
  ["an unknown id", "no-such-session", (file) => `keelson: unknown session no-such-session (${file} does not exist)`],
  ["an invalid id", "Bad_id!", () => 'keelson: invalid-id: "Bad_id!" is not a valid session id'],
];

describe.each(IDS)("%s", (_name, id, message) => {
  it.each(COMMANDS)(
    "%s exits 2 with one line naming the id, writing nothing",
    async (_command, args) => {
      const sessions = join(home, "sessions");
      const before = (await readdir(sessions)).sort();
      const r = await keelson(home, args(id));
      expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({
        code: 2,
        stdout: "",
        stderr: `${message(join(sessions, `${id}.jsonl`))}\n`,
      });
      expect((await readdir(sessions)).sort()).toEqual(before);
    },
    60_000,
  );
});
