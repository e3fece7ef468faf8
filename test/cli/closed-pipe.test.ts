// A reader that closes the pipe early (`keelson sessions | head -1`): the CLI ends quietly (exit 0,
// nothing on stderr) instead of dying on an unhandled EPIPE with a stack trace.
import { spawn } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect, it } from "vitest";
import { Session } from "../../src/session/index.js";
import { JsonlSessionStore } from "../../src/store/index.js";
import { twoTurnLog } from "../support/builders.js";
import { storeSession } from "../support/store-contract.js";
import { BIN, cleanEnv, tempHome } from "./run-keelson.js";

it("`keelson sessions` whose reader closes the pipe after the first bytes exits 0 without a stack trace", async () => {
  const home = await tempHome();
  const sessions = join(home, "sessions");
  const store = new JsonlSessionStore({ root: sessions });
  const session = twoTurnLog(Session.create({ id: "s0000", createdAt: 1_700_000_000_000, cwd: home }));
  await storeSession(store, session);
  await store.close();
  // ~1,500 rows of ~130 bytes: far more than a pipe holds, so the CLI's write meets the closed end.
  const text = await readFile(join(sessions, "s0000.jsonl"), "utf8");
  for (let i = 1; i < 1_500; i++) {
    const id = `s${String(i).padStart(4, "0")}`;
    await writeFile(join(sessions, `${id}.jsonl`), text.replace('"id":"s0000"', `"id":"${id}"`));
  }
  // A real pipe (a child's stdio is a socket pair, whose larger buffer can take it all): the
  // reader takes 16 bytes and exits, the CLI's next write meets the closed end.
  const script = `"$0" "$1" sessions 2>"$2" | head -c 16 >/dev/null; echo "\${PIPESTATUS[0]}"`;
  const errFile = join(home, "stderr.txt");
  const child = spawn("bash", ["-c", script, process.execPath, BIN, errFile], { env: cleanEnv(home), cwd: home });
  let out = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    out += chunk;
  });
  await new Promise((resolve) => child.on("close", resolve));
  expect(await readFile(errFile, "utf8")).toBe("");
  expect(out.trim()).toBe("0");
});
