// Sessions for the inspector's tests, made by the real `keelson` on the in-process emulator: a
// session with a tool call, resumed once after the workspace changed (so its resume snapshot's
// prefix drifts), a fork of it, a crashed copy (its last turn left open), and on request a
// 10k-event session written through the JSONL store. Plus a snapshot of the sessions directory
// (bytes and mtimes) for the read-only checks.
import { readdir, readFile, stat, writeFile, mkdir } from "node:fs/promises";
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { JsonlSessionStore } from "../../src/store/index.js";
import { LogDriver, newSession } from "../support/builders.js";
import { BIN, cleanEnv, keelson, type Result, sessionIdOf, spawn, tempHome } from "../cli/run-keelson.js";

export interface Fixture {
  readonly home: string;
  readonly sessions: string;
  /** Run with a tool call, then resumed once (two loop instances). */
  readonly main: string;
  /** A fork of `main`. */
  readonly fork: string;
  /** A copy of `main` whose last turn is open (as if its writer crashed). */
  readonly crashed: string;
}

export function ok(result: Result): Result {
  if (result.code !== 0)
    throw new Error(`keelson exited ${result.code}\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`);
  return result;
}

export async function makeFixture(): Promise<Fixture> {
  const home = await tempHome();
  const ws = join(home, "ws");
  await mkdir(ws);
  await writeFile(join(ws, "notes.txt"), "Ship the inspector.\n");
  const main = sessionIdOf(ok(await keelson(home, ["run", "--cwd", ws, "what is in notes.txt?"])));
  // The workspace changes between the instances: the resume snapshot's prefix (the baseline) drifts.
  await writeFile(join(ws, "todo.md"), "- review the header diff\n");
  ok(await keelson(home, ["resume", main, "--cwd", ws, "and what changed?"]));
  const fork = ok(await keelson(home, ["fork", main]))
    .stdout.trim()
    .split(/\s+/)
    .at(-1)!;
  const sessions = join(home, "sessions");
  const crashed = randomUUID();
  const lines = (await readFile(join(sessions, `${main}.jsonl`), "utf8")).split("\n").filter(Boolean);
  const lastEnd = lines.findLastIndex((l) => l.includes('"type":"turn/end"'));
  const header = lines[0]!.replace(main, crashed);
  await writeFile(join(sessions, `${crashed}.jsonl`), `${[header, ...lines.slice(1, lastEnd)].join("\n")}\n`);
  return { home, sessions, main, fork, crashed };
}

/**
 * Writes a session of at least `events` events (one-instance turns with a tool call each) through
 * the store; `resultBytes` pads each tool result (a 120k-event log of ~95 MB: 700).
 */
export async function writeLargeSession(sessions: string, events: number, resultBytes = 0): Promise<string> {
  const id = randomUUID();
  const driver = new LogDriver(newSession(id));
  let n = 0;
  while (driver.session.length < events)
    driver.turn({
      prompt: `question ${++n}: what is in file-${n}.txt?`,
      steps: [
        {
          text: "Reading it.",
          toolCalls: [{ name: "read", args: `{"path":"file-${n}.txt"}`, result: `line ${n}`.padEnd(resultBytes, ".") }],
        },
        { text: `It says line ${n}.` },
      ],
    });
  const store = new JsonlSessionStore({ root: sessions });
  await store.create(driver.session.header, driver.session.events);
  await store.close();
  return id;
}

export interface DirSnapshot {
  readonly [name: string]: { readonly bytes: string; readonly mtimeMs: number };
}

/** Every file in `dir`: its bytes (base64) and mtime. */
export async function snapshotDir(dir: string): Promise<DirSnapshot> {
  const out: Record<string, { bytes: string; mtimeMs: number }> = {};
  for (const name of (await readdir(dir)).sort()) {
    const file = join(dir, name);
    out[name] = { bytes: (await readFile(file)).toString("base64"), mtimeMs: (await stat(file)).mtimeMs };
  }
  return out;
}

export interface InspectProcess {
  readonly pid: number;
  readonly url: string;
  readonly origin: string;
  readonly token: string;
  readonly stderr: () => string;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

export interface StartOptions {
  /** Arguments before the command's name (`keelson --store X inspect`). */
  readonly before?: readonly string[];
  /** Node's own flags (e.g. `--max-old-space-size=…`). */
  readonly node?: readonly string[];
}

/** Starts `keelson [before…] inspect …args` and waits (bounded) for the URL line it prints. */
export function startInspect(
  home: string,
  args: readonly string[],
  options: StartOptions = {},
): Promise<InspectProcess> {
  const argv = [...(options.node ?? []), BIN, ...(options.before ?? []), "inspect", ...args];
  const child = spawn(process.execPath, argv, { env: cleanEnv(home), cwd: home });
  let stdout = "";
  let stderr = "";
  const exited = new Promise<number | null>((done) => child.on("exit", (code) => done(code)));
  return new Promise((done, fail) => {
    const timer = setTimeout(
      () => fail(new Error(`keelson inspect printed no URL in 30 s\n${stdout}\n${stderr}`)),
      30_000,
    );
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    child.stdout.on("data", (d: Buffer) => {
      stdout += d.toString();
      const match = /keelson inspect: (http:\/\/127\.0\.0\.1:\d+)\/#token=([A-Za-z0-9_-]+)\S*/.exec(stdout);
      if (match === null) return;
      clearTimeout(timer);
      done({
        pid: child.pid!,
        url: match[0].slice("keelson inspect: ".length),
        origin: match[1]!,
        token: match[2]!,
        stderr: () => stderr,
        stop: async () => {
          child.kill("SIGTERM");
          return exited;
        },
      });
    });
    void exited.then((code) => {
      clearTimeout(timer);
      fail(new Error(`keelson inspect exited ${code} before printing a URL\n${stdout}\n${stderr}`));
    });
  });
}
