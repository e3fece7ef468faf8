// Issue #20 F14: escape sequences in file contents, model text and log contents reached the
// terminal raw — chat's tool lines, `show`, `run`'s answer, `sessions`, `verify`, error
// messages. Every one of them now goes through src/cli/terminal-text.ts. The built CLI runs a
// real turn on the emulator (rule-based model) that reads a file full of escape sequences and
// quotes its first line back, and every command that prints that session is checked for raw
// control characters.
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fc from "fast-check";
import {
  TerminalTextStream,
  terminalJson,
  terminalLine,
  terminalLines,
  terminalText,
} from "../../src/cli/terminal-text.js";
import { wireLines } from "../../src/cli/requests-command.js";
import { ChatProcess } from "./chat-process.js";
import { keelson, type Result, sessionIdOf, tempHome } from "./run-keelson.js";

/** An OSC title change, a screen clear, an 8-bit CSI, a BEL, and a right-to-left override. */
const HOSTILE = "Title \x1b]0;pwn\x07 then \x1b[2J cleared \u009b31m red \u202eevil";
/** Any character a terminal could obey (ESC, BEL, CSI, other C0/C1 but newline and tab, bidi overrides). */
const RAW_CONTROL = /(?![\n\t])[\p{Cc}\u202a-\u202e\u2066-\u2069]/u;

const raw = (text: string): string | undefined => RAW_CONTROL.exec(text)?.[0];

describe("terminal text", () => {
  it("escapes ESC, BEL, CSI and bidi overrides, keeping newlines and tabs in multi-line text", () => {
    expect(terminalText(`a\tb\n${HOSTILE}\r\nend`)).toBe(
      "a\tb\nTitle \\x1b]0;pwn\\x07 then \\x1b[2J cleared \\x9b31m red \\u{202e}evil\nend",
    );
    expect(terminalLine("one\ntwo\x1b[2J")).toBe("one\\x0atwo\\x1b[2J");
    expect(terminalText(terminalText(HOSTILE))).toBe(terminalText(HOSTILE)); // idempotent
  });

  // Found from outside: an answer's 👨‍👩 printed as `👨\u{200d}👩`.
  it("keeps the zero-width joiners prose needs in an answer; escapes them in a line and every other format character", () => {
    const family = "\u{1f468}\u200d\u{1f469}";
    const persian = "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645";
    expect(terminalText(`${family} ${persian}`)).toBe(`${family} ${persian}`);
    expect(terminalText("zero\u200bwidth \u2066isolate\u2069 \u{e0041}tag")).toBe(
      "zero\\u{200b}width \\u{2066}isolate\\u{2069} \\u{e0041}tag",
    );
    expect(terminalLine(family)).toBe("\u{1f468}\\u{200d}\u{1f469}");
    // Next to ASCII, or at an end, a joiner only hides something: `.bash\u200drc` shows as `.bashrc` (review).
    expect(terminalText(".bash\u200drc \u200d\u{1f468} \u{1f468}\u200d")).toBe(
      ".bash\\u{200d}rc \\u{200d}\u{1f468} \u{1f468}\\u{200d}",
    );
    expect(terminalText("\u2764\ufe0f\u200d\u{1f525}")).toBe("\u2764\ufe0f\u200d\u{1f525}"); // ❤️‍🔥
  });

  it("escapes a listing's lines as terminalLine escapes each (one scan when none needs it)", () => {
    const cell = fc.oneof(
      fc.string(),
      fc.constantFrom(
        "\n",
        "\t",
        "\x1b[2J",
        "\u202e",
        "\u0085",
        "\ud800",
        "plain",
        "\u00ad",
        "\u00a0",
        "é",
        "\u2028",
        "\ufeff",
        "\x7f",
        "\x9f",
      ),
    );
    fc.assert(
      fc.property(
        fc.array(
          fc.array(cell, { maxLength: 4 }).map((c) => c.join("")),
          { maxLength: 6 },
        ),
        (lines) => {
          expect(terminalLines(lines)).toBe(lines.map(terminalLine).join("\n"));
        },
      ),
      { numRuns: 1000 },
    );
    expect(terminalLines(["a\tb", "cwd\n/x"])).toBe("a\tb\ncwd\\x0a/x");
  });

  it("escapes JSON text without changing its value", () => {
    const value = { text: HOSTILE, line: "\u2028", astral: "😀" };
    const json = terminalJson(JSON.stringify(value, null, 2));
    expect(raw(json.replace(/\n/g, ""))).toBeUndefined();
    expect(JSON.parse(json)).toEqual(value);
  });

  it("requests --wire: byte-exact into a pipe, escaped (same JSON values) on a terminal", () => {
    const bodies = [JSON.stringify({ messages: [{ content: HOSTILE }] }), JSON.stringify({ text: "plain" })];
    const piped = wireLines(bodies, false);
    expect(piped).toBe(`${bodies[0]}\n${bodies[1]}\n`);
    expect(raw(piped)).toBe("\u009b"); // JSON.stringify leaves the 8-bit CSI raw
    const shown = wireLines(bodies, true);
    expect(raw(shown)).toBeUndefined();
    expect(
      shown
        .trimEnd()
        .split("\n")
        .map((line) => JSON.parse(line)),
    ).toEqual(bodies.map((b) => JSON.parse(b)));
  });

  it("escapes a stream chunk by chunk as the whole would be, a CRLF or surrogate pair split across chunks included", () => {
    const stream = new TerminalTextStream();
    const chunks = ["a\x1b", "[2Jb\r", "\nc\ud83d", "\ude00d\u009b", "x\r"];
    const out = chunks.map((c) => stream.push(c)).join("") + stream.flush();
    expect(out).toBe(terminalText(chunks.join("")));
    expect(out).toBe("a\\x1b[2Jb\nc😀d\\x9bx\\x0d");
  });
});

describe("the CLI prints untrusted text escaped", () => {
  let home: string;
  let workspace: string;
  let id: string;
  let run: Result;

  beforeAll(async () => {
    home = await tempHome();
    workspace = join(home, "workspace");
    await mkdir(workspace);
    await writeFile(join(workspace, "notes.txt"), `${HOSTILE}\nsecond line\n`);
    run = await keelson(home, ["run", "read notes.txt \x1b[2J", "--cwd", workspace]);
    id = sessionIdOf(run);
  }, 60_000);
  afterAll(() => rm(home, { recursive: true, force: true }));

  it("run: the answer quoting the file has its escapes shown, not obeyed", () => {
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('read returned: "1\tTitle \\x1b]0;pwn\\x07 then \\x1b[2J cleared \\x9b31m red');
    expect(raw(run.stdout)).toBeUndefined();
    expect(raw(run.stderr)).toBeUndefined();
  });

  it("run --json: every line is JSON with no raw control character", async () => {
    const r = await keelson(home, ["run", "read notes.txt", "--json", "--cwd", workspace]);
    expect(r.code).toBe(0);
    expect(raw(r.stdout.replace(/\n/g, ""))).toBeUndefined();
    const events = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { type: string; data: unknown });
    expect(JSON.stringify(events)).toContain("\\u001b]0;pwn"); // the value itself is intact
  }, 60_000);

  it("show, sessions, requests and cache print the session without raw control characters", async () => {
    for (const args of [["show", id], ["sessions"], ["sessions", "--json"], ["requests", id], ["cache", id]]) {
      const r = await keelson(home, args);
      expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(0);
      expect(raw(r.stdout), args.join(" ")).toBeUndefined();
    }
    const show = await keelson(home, ["show", id]);
    expect(show.stdout).toContain("\\x1b]0;pwn\\x07");
    expect(show.stdout).toContain("user: read notes.txt \\x1b[2J");
  }, 60_000);

  it("verify: a problem quoting the log (an unknown event type with a CSI in it) is escaped", async () => {
    const { file } = { file: join(home, "sessions", `${id}.jsonl`) };
    const lines = (await readFile(file, "utf8")).trimEnd().split("\n");
    const last = JSON.parse(lines.at(-1)!) as { seq: number; at: number };
    const bad = join(home, "bad.jsonl");
    const type = "x\u009b2J\u202e";
    await writeFile(
      bad,
      `${[...lines, JSON.stringify({ seq: last.seq + 1, at: last.at, type, data: {} })].join("\n")}\n`,
    );
    const r = await keelson(home, ["verify", bad]);
    expect(r.code).toBe(1);
    expect(`${r.stdout}${r.stderr}`).toContain("x\\x9b2J\\u{202e}");
    expect(raw(r.stdout)).toBeUndefined();
    expect(raw(r.stderr)).toBeUndefined();
  }, 60_000);

  it("an error message naming an untrusted path is escaped", async () => {
    const r = await keelson(home, ["show", join(home, "no\x1b[2Jsuch\u009b.jsonl")]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("no\\x1b[2Jsuch\\x9b.jsonl");
    expect(raw(r.stderr)).toBeUndefined();
  });

  // Found from outside: commander's own usage errors quoted argv raw — a prompt or an answer that
  // starts with "-" (a bot forwarding a user's text), a bad choice, an unknown command.
  it("commander's usage errors quoting argv are escaped", async () => {
    const hostile = "\x1b]52;c;QQ==\x07\x1b[2J\u009bX\u202e";
    for (const args of [["run", `-${hostile}prompt`], ["requests", "x", "--wire", hostile], [hostile]]) {
      const r = await keelson(home, args);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("\\x1b]52;c;QQ==\\x07");
      expect(raw(r.stderr)).toBeUndefined();
    }
  });

  it("chat: the tool result line and the answer are escaped", async () => {
    const chat = new ChatProcess(home, ["--cwd", workspace]);
    chat.child.stdin.write("read notes.txt\n");
    await chat.waitFor(/read returned: .*\n/);
    chat.child.stdin.end();
    expect((await chat.exited).code).toBe(0);
    expect(chat.stdout).toContain("  ✓ 1 Title \\x1b]0;pwn\\x07");
    expect(raw(chat.stdout)).toBeUndefined();
  }, 60_000);
});
