// One trial of the concurrent-writers suite, on three writer processes (fixtures/
// concurrent-writers-child.ts) over one session in a fresh root:
//   1. the holder resumes the session and holds it mid-turn, its partial turn flushed;
//   2. both other processes try to open it for writing at once, and this process tries a
//      writable load, resumeAgent and create: every attempt is refused with StoreError `locked`
//      naming the holder's pid, a read-only load still works, and the file is unchanged (no
//      repair, nothing appended);
//   3. the holder finishes (turn completed, disposed: nothing it wrote is lost, the lock is gone)
//      — or, in the `stale` variant, is SIGKILLed while holding, leaving a stale lock;
//   4. the two others race to open at the same moment — resume the session (`resume`, `stale`)
//      or create a new one with one id (`create`): exactly one wins, the other is refused; the
//      winner's turn completes and the log verifies.
import { createHash } from "node:crypto";
import { access, readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { ScriptedProvider } from "../src/llm/index.js";
import { createAgent, resumeAgent } from "../src/loop/index.js";
import { verifyLog } from "../src/reconstruct/index.js";
import { JsonlSessionStore, StoreError } from "../src/store/index.js";
import type { WriterChild } from "./fixtures/writer-child.js";
import { check } from "./violation.js";

export type RaceVariant = "resume" | "stale" | "create";

/** The three writer processes of a trial; `holderKilled` tells the pool to replace the holder for later trials. */
export interface TrialWriters {
  readonly holder: WriterChild;
  readonly racers: readonly [WriterChild, WriterChild];
  holderKilled(): void;
}

const sha256 = (bytes: Buffer | string): string => createHash("sha256").update(bytes).digest("hex");

/** `<n> <sha>` from a `holding`/`done` line. */
function parseDigest(line: string, prefix: string): { events: number; sha: string } {
  const match = new RegExp(`^${prefix} (\\d+) ([0-9a-f]{64})$`).exec(line);
  check(match !== null, `expected "${prefix} <n> <sha>", got ${JSON.stringify(line)}`);
  return { events: Number(match[1]), sha: match[2]! };
}

interface OpenResult {
  readonly line: string;
  readonly refusal?: { readonly name: unknown; readonly code: unknown; readonly message: unknown };
}

async function openResult(writer: WriterChild): Promise<OpenResult> {
  const line = await writer.waitFor((l) => l.startsWith("refused ") || l.startsWith("holding "), "an answer to open");
  return line.startsWith("refused ") ? { line, refusal: JSON.parse(line.slice("refused ".length)) } : { line };
}

function checkLockedRefusal(result: OpenResult, id: string, holderPid: number, who: string): void {
  const refusal = result.refusal;
  check(refusal !== undefined, `${who} opened the session while pid ${holderPid} held it: ${result.line}`);
  check(
    refusal.name === "StoreError" && refusal.code === "locked",
    `${who} was refused with ${JSON.stringify(refusal)}, expected StoreError locked`,
  );
  const message = String(refusal.message);
  check(
    message.includes(`session ${id} is already open for writing by pid ${holderPid}`),
    `${who}'s refusal does not say who holds the session: ${message}`,
  );
}

/** What a refused in-process attempt threw, checked like a child's refusal. */
async function inProcessRefusal(
  attempt: () => Promise<unknown>,
  id: string,
  holderPid: number,
  who: string,
): Promise<void> {
  const error = await attempt().then(
    () => undefined,
    (e: unknown) => e,
  );
  check(error instanceof StoreError, `${who} was not refused with a StoreError: ${String(error)}`);
  checkLockedRefusal(
    { line: String(error), refusal: { name: error.name, code: error.code, message: error.message } },
    id,
    holderPid,
    who,
  );
}

const scriptedOptions = () => ({
  provider: new ScriptedProvider([{ text: "First turn." }]),
  model: "scripted:writers",
  system: "You are one of two writers.",
});

export async function writersTrial(
  root: string,
  trial: number,
  variant: RaceVariant,
  writers: TrialWriters,
  firstRacer: 0 | 1,
): Promise<string[]> {
  const kinds: string[] = [`race-${variant}`];
  const id = `writers-${trial}`;
  const file = join(root, `${id}.jsonl`);
  const seedAgent = createAgent({ ...scriptedOptions(), sessionId: id, store: new JsonlSessionStore({ root }) });
  check(
    (await seedAgent.send("Set up the shared session.")).reason.kind === "completed",
    "the setup turn did not complete",
  );
  await seedAgent.dispose();

  // 1. The holder holds the session mid-turn.
  const { holder, racers } = writers;
  holder.send(`open resume ${root} ${id}`);
  const held = await openResult(holder);
  check(held.refusal === undefined, `the holder was refused: ${held.line}`);
  const holding = parseDigest(held.line, "holding");
  const whileHeld = await readFile(file);
  check(sha256(whileHeld) === holding.sha, "the file differs from what the holder flushed before holding");

  // 2. Every other writer is refused and changes nothing.
  for (const racer of racers) racer.send(`open resume ${root} ${id}`);
  for (const [i, racer] of racers.entries())
    checkLockedRefusal(await openResult(racer), id, holder.pid, `writer process ${i + 1}`);
  const here = (): JsonlSessionStore => new JsonlSessionStore({ root });
  const stores = [here(), here(), here(), here()] as const;
  try {
    await inProcessRefusal(() => stores[0].load(id), id, holder.pid, "a writable load in another process");
    await inProcessRefusal(
      () => resumeAgent(stores[1], id, scriptedOptions()),
      id,
      holder.pid,
      "resumeAgent in another process",
    );
    const header = (await stores[2].load(id, { readOnly: true })).session.header;
    await inProcessRefusal(() => stores[2].create(header), id, holder.pid, "create in another process");
    const peek = await stores[3].load(id, { readOnly: true });
    check(
      peek.needsRepair && peek.session.length === holding.events,
      "a read-only load while held does not show the holder's open turn as flushed",
    );
  } finally {
    for (const store of stores) await store.close();
  }
  check((await readFile(file)).equals(whileHeld), "a refused writer changed the file");
  kinds.push("refused-while-held");

  // 3. The holder finishes, or dies holding.
  let before: Buffer;
  if (variant === "stale") {
    await holder.kill();
    writers.holderKilled();
    before = await readFile(file);
    check(before.equals(whileHeld), "the file changed when the holder was killed");
    check(await exists(join(root, `${id}.lock`)), "the killed holder left no lock behind");
  } else {
    holder.send("finish");
    const done = parseDigest(await holder.waitFor((l) => l.startsWith("done "), "the holder's done"), "done");
    before = await readFile(file);
    check(sha256(before) === done.sha, "after the holder finished, the file is not the log it wrote");
    check(
      before.subarray(0, whileHeld.length).equals(whileHeld),
      "the holder's finished log does not extend what it had flushed",
    );
    check(!(await exists(join(root, `${id}.lock`))), "the holder left its lock behind after dispose");
  }

  // 4. The race.
  const target = variant === "create" ? `${id}-new` : id;
  const order = firstRacer === 0 ? racers : ([racers[1], racers[0]] as const);
  for (const racer of order) racer.send(`open ${variant === "create" ? "create" : "resume"} ${root} ${target}`);
  const results = await Promise.all(racers.map(openResult));
  const winners = results.flatMap((r, i) => (r.refusal === undefined ? [i] : []));
  check(
    winners.length === 1,
    `${winners.length} of two racing writers opened ${target} (${results.map((r) => r.line.slice(0, 120)).join(" | ")})`,
  );
  const winner = racers[winners[0]!]!;
  const loser = results[1 - winners[0]!]!.refusal!;
  check(
    loser.name === "StoreError" && loser.code === "locked",
    `the losing writer was refused with ${JSON.stringify(loser)}, expected StoreError locked`,
  );
  kinds.push(winners[0] === firstRacer ? "first-sent-won" : "second-sent-won");
  winner.send("finish");
  const done = parseDigest(await winner.waitFor((l) => l.startsWith("done "), "the winner's done"), "done");
  const after = await readFile(join(root, `${target}.jsonl`));
  check(sha256(after) === done.sha, "after the race, the file is not the log the winner wrote");
  if (variant !== "create")
    check(after.subarray(0, before.length).equals(before), "the winner's log does not extend the log it resumed");
  const reader = here();
  try {
    const { session } = await reader.load(target, { readOnly: true });
    const report = verifyLog(session.events);
    check(report.ok, `verifyLog after the race: ${JSON.stringify(report.issues)}`);
    const ends = session.events
      .filter((e) => e.type === "turn/end")
      .map((e) => (e.data as { reason: { kind: string } }).reason.kind);
    const expected =
      variant === "create"
        ? ["completed"]
        : variant === "stale"
          ? ["completed", "interrupted", "completed"]
          : ["completed", "completed", "completed"];
    check(ends.join() === expected.join(), `turn ends ${ends.join()}, expected ${expected.join()}`);
  } finally {
    await reader.close();
  }
  const locks = (await readdir(root)).filter((name) => name.endsWith(".lock"));
  check(locks.length === 0, `locks left after every writer finished: ${locks.join(", ")}`);
  return kinds;
}

const exists = (path: string): Promise<boolean> =>
  access(path).then(
    () => true,
    () => false,
  );
