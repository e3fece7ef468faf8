// `keelson chat` end to end as a subprocess on the default in-process emulator (rule-based
// model): a piped script through turns and every slash command; the permission prompt (no,
// yes once, always); and Ctrl-C — once mid-turn (the turn closes as aborted, the next turn
// works), twice (the chat exits cleanly) — after which the log loads and verifies. The tests
// wait on the chat's output, never on time.
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyLog } from "../../src/reconstruct/index.js";
import { isPairingBalanced, type SessionEvent } from "../../src/session/index.js";
import { JsonlSessionStore } from "../../src/store/index.js";
import { ChatProcess, chatScript, hasPty } from "./chat-process.js";
import { keelson, tempHome } from "./run-keelson.js";

let home: string;
let ws: string;

beforeAll(async () => {
  home = await tempHome();
  ws = join(home, "ws");
  await mkdir(ws);
  await writeFile(join(ws, "notes.txt"), "Ship the chat.\n");
});
afterAll(() => rm(home, { recursive: true, force: true }));

async function loadEvents(id: string): Promise<readonly SessionEvent[]> {
  const store = new JsonlSessionStore({ root: join(home, "sessions") });
  try {
    const { session } = await store.load(id, { readOnly: true });
    return session.events;
  } finally {
    await store.close();
  }
}

const FOOTER =
  /── turn (\d+) · (\d+) steps? · input [\d,]+ · cache read [\d,]+ · cache write [\d,]+ · output [\d,]+ · cache hit (?:[\d.]+%|-) · \$\d+\.\d{5} · (\S+)/g;
const sessionOf = (stdout: string): string => /keelson chat · session ([0-9a-f-]{36})/.exec(stdout)![1]!;

describe.concurrent("keelson chat (piped stdin)", () => {
  it("streams answers with a per-turn footer, runs the slash commands, forks, and saves verifiable logs", async () => {
    const { code, stdout, stderr } = await chatScript(
      home,
      ["--cwd", ws],
      [
        "hello there",
        "what is in notes.txt?",
        "/session",
        "/cache",
        "/compact",
        "/fork",
        "list the files",
        "/nope",
        "/help",
        "/exit",
        "never sent",
      ],
    );
    expect(code, stderr).toBe(0);
    expect(stderr.split("\n").filter((l) => l.includes("offline emulator"))).toHaveLength(1);
    const parent = sessionOf(stdout);
    expect(stdout).toContain("› hello there\nUnderstood: hello there\n");
    expect(stdout).toMatch(
      / {2}⚙ read \{"path":"notes.txt"\}\n {2}✓ 1 Ship the chat.\nread returned: "1\tShip the chat."/,
    );
    const footers = [...stdout.matchAll(FOOTER)].map((m) => ({ turn: Number(m[1]), steps: Number(m[2]), end: m[3] }));
    // /compact on a short session either summarizes or has nothing to compact; a failed
    // compaction's footer says "compaction failed: …", never "completed".
    const compacted = stdout.includes("⧉ compaction done");
    expect(footers).toEqual([
      { turn: 1, steps: 1, end: "completed" },
      { turn: 2, steps: 2, end: "completed" },
      { turn: 3, steps: 0, end: compacted ? "completed" : "compaction" }, // /compact's turn (no model step; a summary call, if any, is in its usage)
      { turn: 4, steps: 2, end: "completed" }, // in the fork
    ]);
    if (!compacted) expect(stdout).toMatch(/── turn 3 · .* · compaction failed: \S/);
    // /session: the prefix is shown as request-only, with the workspace baseline in it.
    expect(stdout).toMatch(/prefix {3}\d request-only messages? \(logged on the request header, not in history\):/);
    expect(stdout).toMatch(/- <system-reminder> Working directory: /);
    expect(stdout).toContain(`log      ${join(home, "sessions", `${parent}.jsonl`)}`);
    // /cache: the table with a bar per request and totals.
    expect(stdout).toMatch(/cache report for session [0-9a-f-]+ \(3 requests/);
    expect(stdout).toMatch(/cache-hit share \d+\.\d% · cost \$\d+\.\d{5}/);
    // /compact on a short session: nothing above the floor worth summarizing, or a summary.
    expect(stdout).toMatch(
      /› \/compact\n {2}⧉ compacting \(\w+\)…\n {2}⧉ compaction (?:done\n {2}compacted: \d+ tokens|failed: )/,
    );
    const fork = /forked ([0-9a-f-]{36}) → ([0-9a-f-]{36}); now chatting in the fork/.exec(stdout);
    expect(fork?.[1]).toBe(parent);
    const child = fork![2]!;
    expect(stdout).toContain("unknown command /nope");
    expect(stdout).toContain("/compact  summarize older history");
    expect(stdout).not.toContain("never sent");
    expect(stdout).toContain(`session ${child} saved in ${join(home, "sessions", `${child}.jsonl`)}`);

    for (const id of [parent, child]) {
      const verify = await keelson(home, ["verify", id]);
      expect(verify.code, verify.stdout).toBe(0);
    }
    const childEvents = await loadEvents(child);
    expect(
      childEvents
        .filter((e) => e.type === "user/message")
        .map((e) => (e.data as { content: { text: string }[] }).content[0]!.text),
    ).toEqual(["hello there", "what is in notes.txt?", "list the files"]);
  }, 90_000);

  it("asks before writes: no refuses, yes allows once, always stops asking for that tool", async () => {
    const dir = join(home, "perm");
    await mkdir(dir);
    const { code, stdout, stderr } = await chatScript(
      home,
      ["--cwd", dir],
      [
        "write `one` to a.txt",
        "n",
        "write `two` to b.txt",
        "y",
        "write `three` to c.txt",
        "maybe",
        "always",
        "write `four` to d.txt",
      ],
    );
    expect(code, stderr).toBe(0);
    // The tool is named once, by the prompt: `allow write: a.txt (3 characters)?`, not `allow write: write a.txt`.
    const questions =
      stdout.match(/allow write: [a-d]\.txt \(\d+ characters?\)\? \[y\]es \/ \[n\]o \/ \[a\]lways: /g) ?? [];
    expect(questions).toHaveLength(4); // a, b, c twice (after "maybe"); never for d
    expect(stdout).not.toContain("allow write: write ");
    expect(stdout).toContain("please answer y, n or always");
    expect(stdout).toMatch(/✗ .*(?:denied|permission)/i);
    await expect(readFile(join(dir, "a.txt"), "utf8")).rejects.toThrow(/ENOENT/);
    expect(await readFile(join(dir, "b.txt"), "utf8")).toBe("two");
    expect(await readFile(join(dir, "c.txt"), "utf8")).toBe("three");
    expect(await readFile(join(dir, "d.txt"), "utf8")).toBe("four");
  }, 90_000);
});

// bash runs with --sandbox off here: these tests are about Ctrl-C (the sandbox: test/cli/sandbox.test.ts).
describe.concurrent("keelson chat and Ctrl-C", () => {
  it("cancels the running turn on the first Ctrl-C (closed as aborted, next turn works), exits cleanly on two at the prompt", async () => {
    const chat = new ChatProcess(home, ["--cwd", ws, "--allow", "bash", "--sandbox", "off"]);
    await chat.waitFor(/type a message/);
    chat.send("run `sleep 30`");
    await chat.waitFor(/⚙ bash \{"command":"sleep 30"\}/);
    chat.interrupt();
    await chat.waitFor(/\^C cancelling the turn/);
    await chat.waitFor(/── turn 1 · .* · aborted: interrupted by the user \(Ctrl-C\)/);
    const from = chat.stdout.length;
    chat.send("hello again");
    await chat.waitFor(/Understood: hello again\n── turn 2 · 1 step · .* · completed/, from);
    chat.interrupt();
    await chat.waitFor(/press Ctrl-C again, or type \/exit, to quit/, from);
    chat.interrupt();
    const { code } = await chat.exited;
    expect(code, chat.stderr).toBe(0);
    const id = sessionOf(chat.stdout);
    expect(chat.stdout).toContain(`session ${id} saved`);

    const events = await loadEvents(id);
    const ends = events
      .filter((e) => e.type === "turn/end")
      .map((e) => (e.data as { reason: { kind: string } }).reason.kind);
    expect(ends).toEqual(["aborted", "completed"]);
    expect(verifyLog(events).issues).toEqual([]);
    const store = new JsonlSessionStore({ root: join(home, "sessions") });
    const { session } = await store.load(id, { readOnly: true });
    await store.close();
    expect(isPairingBalanced(session.deriveMessages())).toBe(true); // the cancelled bash call has its result
  }, 90_000);

  it("two Ctrl-C during a turn exit cleanly, leaving a closed turn and a loadable, verifiable log", async () => {
    const chat = new ChatProcess(home, ["--cwd", ws, "--allow", "bash", "--sandbox", "off"]);
    await chat.waitFor(/type a message/);
    chat.send("run `sleep 30`");
    await chat.waitFor(/⚙ bash/);
    chat.interrupt();
    await chat.waitFor(/\^C cancelling the turn/);
    chat.interrupt();
    const { code } = await chat.exited;
    expect(code, chat.stderr).toBe(0);
    const id = sessionOf(chat.stdout);
    const events = await loadEvents(id);
    expect(events.at(-1)?.type).toBe("turn/end");
    const verify = await keelson(home, ["verify", id]);
    expect(verify.code, verify.stdout).toBe(0);
  }, 90_000);
});

const pty = hasPty();
if (!pty) console.log("skipping the pseudo-terminal chat test: util-linux `script` is not available");

describe.skipIf(!pty)("keelson chat on a pseudo-terminal", () => {
  it("shows the prompt and the spinner until the first token; a typed Ctrl-C cancels the turn, the next one exits cleanly", async () => {
    const chat = new ChatProcess(home, ["--cwd", ws, "--allow", "bash", "--sandbox", "off"], { tty: true });
    await chat.waitFor(/type a message[^\n]*\n[\s\S]*› /);
    chat.send("hello tty");
    // A spinner frame (braille) with its label is drawn and erased before the answer streams in.
    await chat.waitFor(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] thinking[\s\S]*Understood: hello tty/);
    expect(chat.stdout).toContain("\r\u001b[2KUnderstood: hello tty"); // the spinner line erased first
    await chat.waitFor(/── turn 1 · 1 step · .* · completed/);
    chat.send("run `sleep 30`");
    await chat.waitFor(/⚙ bash \{"command":"sleep 30"\}/);
    const from = chat.stdout.length;
    chat.typeCtrlC();
    await chat.waitFor(/── turn 2 · .* · aborted: interrupted by the user \(Ctrl-C\)[\s\S]*› /, from);
    chat.typeCtrlC(); // the second Ctrl-C since the last line typed: exit
    await chat.waitFor(/\^C exiting/, from);
    const { code } = await chat.exited;
    expect(code, chat.stdout).toBe(0);
    const id = sessionOf(chat.stdout.replaceAll("\r", ""));
    const verify = await keelson(home, ["verify", id]);
    expect(verify.code, verify.stdout).toBe(0);
  }, 90_000);
});
