// A writer in its own process, for the fencing test (run with `node --import tsx`): creates
// session <id> on <url> with a <leaseMs> lease, one completed turn and an open one, flushes and
// prints "ready". On the stdin line "append" it appends a user message to the open turn and
// flushes, printing `{"ok":true}` or `{"code":…}`, then closes the store and exits. The test
// pauses it with SIGSTOP in between, so its lease expires while it cannot heartbeat.
import { createInterface } from "node:readline";
import { PostgresSessionStore } from "../../src/store/postgres/index.js";
import { LogDriver, newSession, text } from "../support/builders.js";

const [url, id, leaseMs] = process.argv.slice(2) as [string, string, string];
const store = new PostgresSessionStore({ url, leaseMs: Number(leaseMs) });
const session = newSession(id);
await store.create(session.header);
const persistence = store.attach(session);
new LogDriver(session).turn({ prompt: "first", steps: [{ text: "done" }] });
session.append("turn/start", { turn: 2, trigger: "send" });
await persistence.flush();
process.stdout.write("ready\n");

for await (const line of createInterface({ input: process.stdin })) {
  if (line !== "append") continue;
  session.append("user/message", { content: [text("written after the pause")], source: "user" });
  let result: Record<string, unknown> = { ok: true };
  try {
    await persistence.flush();
  } catch (e) {
    result = { code: (e as { code?: unknown }).code, message: (e as Error).message };
  }
  await store.close().catch(() => undefined);
  process.stdout.write(`${JSON.stringify(result)}\n`);
  break;
}
