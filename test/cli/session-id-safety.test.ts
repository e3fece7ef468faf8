// Issue #12 (CLI): "no such session" is one thing for every command that takes a session id —
// exit 2 (bad input), one line on stderr, the same words, nothing written. `resume` used to exit
// 1 where `show` exited 2.
import { copyFile, readdir, rm } from "node:fs/promises";
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

// Found from outside: a valid log copied under another id's file name verified "clean" by that
// id, while show, cache, replay and resume refused it (its meta line names another session).
describe("verify by id checks the log is that id's", () => {
  it("a file whose meta line names another session is not clean", async () => {
    const sessions = join(home, "sessions");
    const [file] = (await readdir(sessions)).filter((name) => name.endsWith(".jsonl"));
    const other = "0000-misplaced";
    await copyFile(join(sessions, file!), join(sessions, `${other}.jsonl`));
    try {
      const r = await keelson(home, ["verify", other]);
      expect(r.code).toBe(1);
      expect(r.stdout).toContain(`:1: corrupt: line 1 names session "${file!.replace(/\.jsonl$/, "")}", not ${other}`);
      expect((await keelson(home, ["verify", join(sessions, `${other}.jsonl`)])).code).toBe(0); // a FILE may be any log
    } finally {
      await rm(join(sessions, `${other}.jsonl`));
    }
  });
});
