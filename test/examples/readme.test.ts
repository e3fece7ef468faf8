// The README's library example, run as written (with a temporary store root).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";
import { HeaderWriter } from "../../src/header/index.js";
import { JsonlSessionStore, reconstructRequests, Session, verifyLog } from "../../src/index.js";

test("the README's library example works as written", async () => {
  const root = await mkdtemp(join(tmpdir(), "keelson-readme-"));
  try {
    const store = new JsonlSessionStore({ root });
    const session = Session.create({ cwd: process.cwd() });
    await store.create(session.header);
    const persistence = store.attach(session);

    session.append("turn/start", { turn: 1, trigger: "send" });
    session.append("user/message", { content: [{ type: "text", text: "hi" }], source: "user" });
    const history = session.deriveMessages();
    session.append("step/start", { turn: 1, step: 1 });
    new HeaderWriter(session).record({ config: { model: "m" }, system: "Be brief." });
    session.append("assistant/message", { turn: 1, step: 1, content: [{ type: "text", text: "hello" }] });
    session.append("step/end", { turn: 1, step: 1 });
    session.append("turn/end", { turn: 1, reason: { kind: "completed" } });
    await persistence.flush();

    expect(verifyLog(session.events)).toMatchObject({ ok: true, issues: [] });
    expect(reconstructRequests(session.events)[0]!.request).toEqual({
      model: "m",
      system: "Be brief.",
      messages: history,
    });
    await store.close();
    const { session: loaded } = await new JsonlSessionStore({ root }).load(session.id, { readOnly: true });
    expect(loaded.events).toEqual(session.events);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});
