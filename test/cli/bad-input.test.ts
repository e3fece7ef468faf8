// `verify` on clean and deliberately corrupted logs, and every kind of bad input: one clear
// line on stderr, a non-zero exit, no stack trace unless --debug, and nothing written.
import { copyFile, mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keelson, type Result, sessionIdOf, tempHome } from "./run-keelson.js";

let home: string;
let id: string;
let log: string;

beforeAll(async () => {
  home = await tempHome();
  id = sessionIdOf(await keelson(home, ["run", "hello"]));
  log = join(home, "sessions", `${id}.jsonl`);
}, 60_000);

async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of (await readdir(dir)).sort()) out[name] = await readFile(join(dir, name), "utf8");
  return out;
}

afterAll(() => rm(home, { recursive: true, force: true }));

describe("keelson verify", () => {
  it("exit 0 on a clean log; exit 1 naming file and line on a flipped byte or a wrong seq", async () => {
    const bytes = await readFile(log);
    const lines = bytes.toString("utf8").split("\n");
    // Flip one structural byte in the middle of the file: the first ":" after the midpoint.
    const flipped = Buffer.from(bytes);
    const at = flipped.indexOf(":", Math.floor(flipped.length / 2));
    flipped[at] = flipped[at]! ^ 0x01;
    const flippedLine = flipped.subarray(0, at).toString("utf8").split("\n").length;
    const flippedFile = join(home, "flipped.jsonl");
    await writeFile(flippedFile, flipped);
    // Line 4 holds seq 2; make it claim seq 7.
    const seqFile = join(home, "wrong-seq.jsonl");
    await writeFile(seqFile, lines.map((l, i) => (i === 3 ? l.replace('"seq":2', '"seq":7') : l)).join("\n"));
    // An invalid UTF-8 byte inside a string on line 3: corruption, never decoded lossily.
    const utf8File = join(home, "bad-utf8.jsonl");
    const third = bytes.indexOf(0x0a, bytes.indexOf(0x0a) + 1) + 1;
    const quote = bytes.indexOf('"', bytes.indexOf('"text":"', third) + 8);
    await writeFile(utf8File, Buffer.concat([bytes.subarray(0, quote), Buffer.from([0xff]), bytes.subarray(quote)]));
    const copy = join(home, "copy.jsonl");
    await copyFile(log, copy);

    const [byId, byFile, flip, seq] = await Promise.all([
      keelson(home, ["verify", id]),
      keelson(home, ["verify", copy]),
      keelson(home, ["verify", flippedFile]),
      keelson(home, ["verify", seqFile]),
    ]);
    expect(byId).toMatchObject({ code: 0, stderr: "" });
    expect(byId.stdout).toMatch(/^clean: 7 events, 1 turns, 1 requests/);
    expect(byFile.code).toBe(0);
    expect(flip.code).toBe(1);
    expect(flip.stdout).toContain(`${flippedFile}:${flippedLine}: corrupt:`);
    expect(seq.code).toBe(1);
    expect(seq.stdout).toContain(`${seqFile}:4: seq 2: seq-mismatch:`);
    expect(seq.stdout).toMatch(/not clean: 1 issue/);
    const utf8 = await keelson(home, ["verify", utf8File]);
    expect(utf8.code).toBe(1);
    expect(utf8.stdout).toMatch(/bad-utf8\.jsonl:\d+: corrupt: line \d+ is not valid UTF-8/);
  }, 60_000);
});

describe("bad input", () => {
  it("one line on stderr, non-zero exit, no stack, nothing written", async () => {
    const foreign = join(home, "foreign.jsonl");
    await writeFile(foreign, '{"hello":"world"}\n');
    const before = await snapshot(join(home, "sessions"));
    const cases: [string[], RegExp, Record<string, string>?][] = [
      [["show", "no-such-session"], /unknown session.*no-such-session/],
      [["verify", "no-such-session"], /unknown session no-such-session/],
      [["resume", "no-such-session", "hi"], /unknown session no-such-session/],
      [["fork", "no-such-session"], /unknown session/],
      [["show", foreign], /foreign.*not a Keelson session log/],
      [["run", "--model", "gpt-5", "hi"], /bad model "gpt-5"/],
      [["run", "hi"], /bad model "nonsense:x"/, { KEELSON_MODEL: "nonsense:x" }],
      [["run", "--model", "openai:gpt-5.1", "hi"], /no API key.*OPENAI_API_KEY/],
      [["resume", id, "--model", "anthropic:claude-sonnet-4-5", "hi"], /no API key.*ANTHROPIC_API_KEY/],
      [["fork", id, "--at", "x"], /invalid --at "x"/],
      [["fork", id, "--at", "1"], /cannot fork .* at 1: .*not a turn\/end/],
      [["requests", id, "--step", "9"], /no request "9"/],
      [["chat", "--resume", "no-such-session"], /unknown session no-such-session/],
      [["chat", "--model", "gpt-5"], /bad model "gpt-5"/],
      [["chat", "--model", "deepseek:deepseek-chat"], /no API key.*DEEPSEEK_API_KEY/],
      [["chat", "--allow", "rm"], /invalid --allow "rm"/],
      [["chat", "--cwd", join(home, "missing-dir")], /--cwd .*missing-dir is not a directory/],
    ];
    const results = await Promise.all(cases.map(([args, , env]) => keelson(home, args, env)));
    results.forEach((r: Result, i) => {
      const [args, message] = cases[i]!;
      expect({ args, code: r.code === 0 ? 0 : "non-zero" }).toEqual({ args, code: "non-zero" });
      expect(r.stdout).toBe("");
      const lines = r.stderr.trimEnd().split("\n");
      expect(lines, `${args.join(" ")}: ${r.stderr}`).toHaveLength(1);
      expect(lines[0]).toMatch(message);
      expect(lines[0]).toMatch(/^keelson: /);
    });
    expect(await snapshot(join(home, "sessions"))).toEqual(before);

    const debug = await keelson(home, ["show", "no-such-session", "--debug"]);
    expect(debug.code).not.toBe(0);
    expect(debug.stderr).toMatch(/\n\s+at /);
  }, 60_000);

  it("usage errors (unknown option or command, bad choice, missing argument) exit 2; --help exits 0", async () => {
    const cases = [["requests", id, "--wire", "bogus"], ["run", "--bogus", "hi"], ["nosuch"], ["fork"]];
    const results = await Promise.all(cases.map((args) => keelson(home, args)));
    expect(results.map((r, i) => ({ args: cases[i], code: r.code, stdout: r.stdout }))).toEqual(
      cases.map((args) => ({ args, code: 2, stdout: "" })),
    );
    expect(results[0]!.stderr).toMatch(/Allowed choices are anthropic, openai, responses, deepseek, gemini, /);
    const help = await keelson(home, ["chat", "--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/--resume <id>/);
  }, 60_000);

  it("with --debug a failure also prints its stack", async () => {
    const debug = await keelson(home, ["show", "no-such-session", "--debug"]);
    expect(debug.code).not.toBe(0);
    expect(debug.stderr).toMatch(/\n\s+at /);
  }, 60_000);
});

describe("a session whose working directory is gone", () => {
  it("resume names the stored directory and the way out (--cwd); --cwd continues it", async () => {
    const gone = join(home, "gone-workdir");
    await mkdir(gone);
    const made = sessionIdOf(await keelson(home, ["run", "--cwd", gone, "hello"]));
    await rm(gone, { recursive: true });
    const refused = await keelson(home, ["resume", made, "again"]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(
      /the session's working directory ".*gone-workdir" is not a directory any more: pass --cwd/,
    );
    const moved = await keelson(home, ["resume", made, "--cwd", home, "again"]);
    expect(moved.code).toBe(0);
  }, 60_000);
});
