// A HeaderWriter starts from the header in force at the end of its session's log, memoised by
// the log's last event (a server builds one writer per turn over forks of the same stored
// session). The memo is sound because an event object lives in one log lineage only: a parsed
// log handed frozen events of another session copies them instead of adopting them.
import { describe, expect, test } from "vitest";
import { foldLatestRequestHeader, HeaderWriter } from "../../src/header/index.js";
import { forkSession, Session, type SessionEvent } from "../../src/session/index.js";
import { baseHeader, newSession, tool } from "../support/builders.js";

/** A session with one completed turn whose request logged `header` (a snapshot, then a delta when `then` is given). */
function withHeaders(id: string, first = baseHeader(), then?: ReturnType<typeof baseHeader>): Session {
  const session = newSession(id);
  session.append("turn/start", { turn: 1, trigger: "send" });
  const writer = new HeaderWriter(session);
  session.append("step/start", { turn: 1, step: 1 });
  writer.record(first);
  if (then !== undefined) writer.record(then);
  session.append("step/end", { turn: 1, step: 1 });
  session.append("turn/end", { turn: 1, reason: { kind: "completed" } });
  return session;
}

describe("HeaderWriter's starting fold", () => {
  test("equals foldLatestRequestHeader for a log, its forks, and after more headers are recorded", () => {
    const parent = withHeaders("p", baseHeader(), baseHeader({ tools: [tool("read")] }));
    const fromParent = new HeaderWriter(parent).current;
    expect(fromParent).toEqual(foldLatestRequestHeader(parent.events));
    for (let i = 0; i < 3; i++) {
      const child = forkSession(parent);
      expect(new HeaderWriter(child).current).toEqual(fromParent);
    }
    const child = forkSession(parent);
    child.append("turn/start", { turn: 2, trigger: "send" });
    const writer = new HeaderWriter(child);
    child.append("step/start", { turn: 2, step: 1 });
    writer.record(baseHeader({ tools: [tool("write")] }));
    expect(new HeaderWriter(child).current).toEqual(foldLatestRequestHeader(child.events));
    expect(new HeaderWriter(parent).current).toEqual(fromParent); // the parent's log is unchanged
  });

  test("a log with no header yet starts from undefined, and an empty log too", () => {
    const session = newSession("none");
    expect(new HeaderWriter(session).current).toBeUndefined();
    session.append("turn/start", { turn: 1, trigger: "send" });
    expect(new HeaderWriter(session).current).toBeUndefined();
  });

  test("a parsed log built from another session's frozen events copies them, so its own fold is its own", () => {
    const a = withHeaders("a", baseHeader());
    const b = withHeaders("b", baseHeader({ system: "another system" }));
    expect(new HeaderWriter(a).current).not.toEqual(new HeaderWriter(b).current);
    // b's header events, then a's last event: not a's log, although it ends with a's event object.
    const mixed: SessionEvent[] = [...b.events.slice(0, -1), a.events.at(-1)!];
    const parsed = Session.fromParsedLog(b.header, mixed);
    expect(parsed.eventAt(parsed.length - 1)).not.toBe(a.events.at(-1)); // copied, not adopted
    expect(new HeaderWriter(parsed).current).toEqual(foldLatestRequestHeader(b.events));
  });

  test("fresh JSON.parse results are adopted in place (no copy)", () => {
    const a = withHeaders("a2");
    const raw = JSON.parse(JSON.stringify(a.events)) as unknown[];
    const parsed = Session.fromParsedLog(a.header, raw);
    expect(parsed.eventAt(0)).toBe(raw[0]);
    expect(parsed.eventAt(-1)).toBeUndefined();
    expect(parsed.eventAt(parsed.length)).toBeUndefined();
  });
});
