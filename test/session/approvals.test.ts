// The log's grammar around a pause for a person (#23 §1): a step may end with its calls held for
// approval, the turn ends `awaiting-approval`, nothing joins the history until the held calls
// have results, a later turn logs decisions and runs the held calls outside any step in model
// order; crash repair keeps pending approvals, closes decided ones in flight; forks keep them.
import { describe, expect, test } from "vitest";
import { reconstructRequests, verifyLog } from "../../src/reconstruct/index.js";
import { approvalStatus, forkSession, isPairingBalanced, type Session, SessionError } from "../../src/session/index.js";
import { LogDriver, text, toolCall } from "../support/builders.js";

const ARGS = '{"path":"a.txt"}';

/**
 * Turn 1 completed, then turn 2: one step calling c1 (ran), c2 (needs approval), c3 (waits), c4
 * (needs approval); the step ends with c2..c4 held and the turn ends awaiting-approval.
 */
function awaiting(): Session {
  const s = new LogDriver().turn({ prompt: "first", steps: [{ text: "ok" }] }).session;
  s.append("turn/start", { turn: 2, trigger: "send" });
  s.append("user/message", { content: [text("do it")], source: "user" });
  s.append("step/start", { turn: 2, step: 1 });
  s.append("assistant/message", {
    turn: 2,
    step: 1,
    content: [
      toolCall("c1"),
      toolCall("c2", "write", ARGS),
      toolCall("c3"),
      toolCall("c4", "bash", '{"command":"ls"}'),
    ],
  });
  s.append("tool/call", { turn: 2, step: 1, callId: "c1", name: "read", arguments: "{}" });
  s.append("tool/result", { turn: 2, step: 1, callId: "c1", content: [text("read ok")], isError: false });
  request(s, "c2", "write", ARGS);
  request(s, "c4", "bash", '{"command":"ls"}');
  s.append("step/end", { turn: 2, step: 1 });
  s.append("turn/end", { turn: 2, reason: { kind: "awaiting-approval" } });
  return s;
}

function request(s: Session, callId: string, tool: string, args: string, turn = 2, step = 1): void {
  s.append("approval/request", { turn, step, callId, tool, arguments: args, reason: `${tool} needs approval` });
}

/** Runs a held call outside any step: tool/call + tool/result naming turn 2 step 1. */
function runHeld(s: Session, callId: string, name: string, args: string, result = `${callId} ran`): void {
  s.append("tool/call", { turn: 2, step: 1, callId, name, arguments: args });
  s.append("tool/result", { turn: 2, step: 1, callId, content: [text(result)], isError: false });
}

const code = (f: () => unknown): string | undefined => {
  try {
    f();
    return undefined;
  } catch (e) {
    return e instanceof SessionError ? `${e.code}: ${e.message}` : String(e);
  }
};

describe("a turn that ends awaiting approval", () => {
  test("the step ends with its calls held, the turn ends awaiting-approval, and the log verifies", () => {
    const s = awaiting();
    expect(verifyLog(s.events)).toMatchObject({ ok: true, issues: [] });
    expect(s.openTurn).toBeNull();
    expect(s.awaitingApproval).toBe(true);
    expect(s.pendingApprovals().map((p) => [p.callId, p.tool, p.arguments])).toEqual([
      ["c2", "write", ARGS],
      ["c4", "bash", '{"command":"ls"}'],
    ]);
    expect(s.waitingCalls().map((c) => [c.callId, c.approval?.request.callId])).toEqual([
      ["c2", "c2"],
      ["c3", undefined],
      ["c4", "c4"],
    ]);
  });

  test("nothing joins the history and no step or compaction starts while calls are held", () => {
    const s = awaiting();
    s.append("turn/start", { turn: 3, trigger: "send" });
    const before = s.length;
    expect(code(() => s.append("user/message", { content: [text("hi")], source: "user" }))).toMatch(
      /structure: .*tool calls await approval or their result: c2, c3, c4/,
    );
    expect(code(() => s.append("context/message", { content: [text("x")], source: "inject" }))).toMatch(
      /await approval/,
    );
    expect(code(() => s.append("step/start", { turn: 3, step: 1 }))).toMatch(/await approval/);
    expect(code(() => s.append("compact/start", { turn: 3, trigger: "manual" }))).toMatch(/await approval/);
    expect(code(() => s.append("turn/end", { turn: 3, reason: { kind: "completed" } }))).toMatch(
      /c2, c3, c4 await a person: the turn cannot end completed/,
    );
    expect(s.length).toBe(before);
  });

  test("a step may not end with unlogged calls unless one awaits a decision", () => {
    const s = new LogDriver().session;
    s.append("turn/start", { turn: 1, trigger: "send" });
    s.append("step/start", { turn: 1, step: 1 });
    s.append("assistant/message", { turn: 1, step: 1, content: [toolCall("c1")] });
    expect(code(() => s.append("step/end", { turn: 1, step: 1 }))).toMatch(/tool calls without a result: c1/);
    request(s, "c1", "read", "{}", 1, 1);
    s.append("approval/decision", { callId: "c1", approve: true, by: "live" });
    expect(code(() => s.append("step/end", { turn: 1, step: 1 }))).toMatch(/tool calls without a result: c1/);
  });

  test("awaiting-approval needs a pending approval", () => {
    const s = new LogDriver().session;
    s.append("turn/start", { turn: 1, trigger: "send" });
    expect(code(() => s.append("turn/end", { turn: 1, reason: { kind: "awaiting-approval" } }))).toMatch(
      /no tool call awaits approval/,
    );
  });
});

describe("approval/request and approval/decision", () => {
  test("a request names an unlogged block of the open step, with its tool and arguments, once", () => {
    const s = new LogDriver().session;
    s.append("turn/start", { turn: 1, trigger: "send" });
    s.append("step/start", { turn: 1, step: 1 });
    s.append("assistant/message", { turn: 1, step: 1, content: [toolCall("c1", "write", ARGS)] });
    expect(code(() => request(s, "nope", "write", ARGS, 1, 1))).toMatch(/not an unlogged tool-call block/);
    expect(code(() => request(s, "c1", "bash", ARGS, 1, 1))).toMatch(/differs from the block's/);
    expect(code(() => request(s, "c1", "write", "{}", 1, 1))).toMatch(/arguments differ/);
    expect(code(() => request(s, "c1", "write", ARGS, 1, 2))).toMatch(/names turn 1 step 2/);
    request(s, "c1", "write", ARGS, 1, 1);
    expect(code(() => request(s, "c1", "write", ARGS, 1, 1))).toMatch(/already has an approval request/);
  });

  test("a decision needs a pending request and is logged at most once", () => {
    const s = awaiting();
    s.append("turn/start", { turn: 3, trigger: "approval" });
    expect(code(() => s.append("approval/decision", { callId: "c3", approve: true }))).toMatch(
      /c3 has no pending approval request/,
    );
    expect(code(() => s.append("approval/decision", { callId: "c1", approve: true }))).toMatch(/no pending/);
    s.append("approval/decision", { callId: "c2", approve: true, by: "alice" });
    expect(code(() => s.append("approval/decision", { callId: "c2", approve: false }))).toMatch(
      /c2 is already decided \(seq \d+\)/,
    );
    expect(s.pendingApprovals().map((p) => p.callId)).toEqual(["c4"]);
  });

  test("only an approval may carry edited arguments", () => {
    const s = awaiting();
    s.append("turn/start", { turn: 3, trigger: "approval" });
    expect(code(() => s.append("approval/decision", { callId: "c2", approve: false, arguments: "{}" }))).toMatch(
      /invalid-data: .*only an approval may edit the arguments/,
    );
  });

  test("a partly decided pause ends awaiting-approval again; once all are decided the held calls must run first", () => {
    const s = awaiting();
    s.append("turn/start", { turn: 3, trigger: "approval" });
    s.append("approval/decision", { callId: "c2", approve: true });
    s.append("turn/end", { turn: 3, reason: { kind: "awaiting-approval" } });
    s.append("turn/start", { turn: 4, trigger: "approval" });
    s.append("approval/decision", { callId: "c4", approve: false, note: "no shell" });
    expect(code(() => s.append("turn/end", { turn: 4, reason: { kind: "awaiting-approval" } }))).toMatch(
      /ends awaiting-approval, but no tool call awaits approval/,
    );
    expect(code(() => s.append("turn/end", { turn: 4, reason: { kind: "interrupted" } }))).toMatch(
      /every approval and question of the held calls c2, c3, c4 is answered/,
    );
  });
});

describe("continuing held calls", () => {
  function decided(): Session {
    const s = awaiting();
    s.append("turn/start", { turn: 3, trigger: "approval" });
    s.append("approval/decision", { callId: "c2", approve: true, by: "alice", arguments: '{"path":"b.txt"}' });
    s.append("approval/decision", { callId: "c4", approve: false, by: "bob", note: "no shell" });
    return s;
  }

  test("they run outside any step, in model order, naming the step that made them, then the turn goes on", () => {
    const s = decided();
    expect(code(() => runHeld(s, "c3", "read", "{}"))).toMatch(/model order: c2 comes before c3/);
    expect(
      code(() => s.append("tool/call", { turn: 3, step: 1, callId: "c2", name: "write", arguments: "{}" })),
    ).toMatch(/belongs to turn 2 step 1/);
    expect(code(() => runHeld(s, "c2", "write", ARGS))).toMatch(/differ from the edited arguments/);
    runHeld(s, "c2", "write", '{"path":"b.txt"}');
    runHeld(s, "c3", "read", "{}");
    s.append("tool/call", { turn: 2, step: 1, callId: "c4", name: "bash", arguments: '{"command":"ls"}' });
    s.append("tool/result", {
      turn: 2,
      step: 1,
      callId: "c4",
      content: [text("denied")],
      isError: true,
      error: "denied",
    });
    expect(s.awaitingApproval).toBe(false);
    expect(s.waitingCalls()).toEqual([]);
    s.append("step/start", { turn: 3, step: 1 });
    s.append("assistant/message", { turn: 3, step: 1, content: [text("done")] });
    s.append("step/end", { turn: 3, step: 1 });
    s.append("turn/end", { turn: 3, reason: { kind: "completed" } });
    expect(verifyLog(s.events)).toMatchObject({ ok: true, issues: [] });
    expect(isPairingBalanced(s.deriveMessages())).toBe(true);
  });

  test("a held call's result must name its step, and a step cannot start while one runs", () => {
    const s = decided();
    s.append("tool/call", { turn: 2, step: 1, callId: "c2", name: "write", arguments: '{"path":"b.txt"}' });
    expect(code(() => s.append("step/start", { turn: 3, step: 1 }))).toMatch(/await approval or their result: c2/);
    expect(
      code(() => s.append("tool/result", { turn: 3, step: 1, callId: "c2", content: [text("x")], isError: false })),
    ).toMatch(/belongs to turn 2 step 1/);
  });

  test("every rebuilt request is a pure function of the log: the continuation's request holds every result", () => {
    const s = decided();
    runHeld(s, "c2", "write", '{"path":"b.txt"}');
    runHeld(s, "c3", "read", "{}");
    runHeld(s, "c4", "bash", '{"command":"ls"}', "denied");
    new LogDriver(s).step(3, 1, { text: "done" });
    s.append("turn/end", { turn: 3, reason: { kind: "completed" } });
    const last = reconstructRequests(s.events).at(-1)!;
    expect(last.turn).toBe(3);
    expect(last.history.map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "user",
      "assistant",
      "tool",
      "tool",
      "tool",
      "tool",
    ]);
    expect(isPairingBalanced(last.history)).toBe(true);
  });
});

describe("crash repair and pending approvals", () => {
  test("an open step whose request is undecided keeps its calls waiting: only dispatched calls are closed", () => {
    const s = new LogDriver().turn({ prompt: "first", steps: [{ text: "ok" }] }).session;
    s.append("turn/start", { turn: 2, trigger: "send" });
    s.append("step/start", { turn: 2, step: 1 });
    s.append("assistant/message", { turn: 2, step: 1, content: [toolCall("c1"), toolCall("c2", "write", ARGS)] });
    s.append("tool/call", { turn: 2, step: 1, callId: "c1", name: "read", arguments: "{}" });
    request(s, "c2", "write", ARGS);
    expect(s.openTurnClosers().map((p) => [p.type, (p.data as { callId?: string }).callId])).toEqual([
      ["tool/result", "c1"],
      ["step/end", undefined],
      ["turn/end", undefined],
    ]);
    s.repair();
    expect(verifyLog(s.events).ok).toBe(true);
    expect(s.pendingApprovals().map((p) => p.callId)).toEqual(["c2"]);
  });

  test("a decision turn cut short keeps the pending approval; the decided one waits with it", () => {
    const s = awaiting();
    s.append("turn/start", { turn: 3, trigger: "approval" });
    s.append("approval/decision", { callId: "c2", approve: true });
    expect(s.openTurnClosers()).toEqual([{ type: "turn/end", data: { turn: 3, reason: { kind: "interrupted" } } }]);
    s.repair();
    expect(s.pendingApprovals().map((p) => p.callId)).toEqual(["c4"]);
  });

  test("once every approval is decided the held calls are in flight: repair closes them (with the edited arguments)", () => {
    const s = awaiting();
    s.append("turn/start", { turn: 3, trigger: "approval" });
    s.append("approval/decision", { callId: "c2", approve: true, arguments: '{"path":"b.txt"}' });
    s.append("approval/decision", { callId: "c4", approve: true });
    s.append("tool/call", { turn: 2, step: 1, callId: "c2", name: "write", arguments: '{"path":"b.txt"}' });
    const closers = s.openTurnClosers();
    expect(closers.map((p) => [p.type, (p.data as { callId?: string }).callId])).toEqual([
      ["tool/call", "c3"],
      ["tool/call", "c4"],
      ["tool/result", "c2"],
      ["tool/result", "c3"],
      ["tool/result", "c4"],
      ["turn/end", undefined],
    ]);
    s.repair();
    expect(verifyLog(s.events).ok).toBe(true);
    expect(s.waitingCalls()).toEqual([]);
  });

  test("closeAwaiting (a cancel) closes pending approvals too", () => {
    const s = awaiting();
    s.append("turn/start", { turn: 3, trigger: "cancel" });
    for (const closer of s.openTurnClosers({ closeAwaiting: true, closeTurn: false, error: "aborted" }))
      s.appendPending(closer);
    s.append("turn/end", { turn: 3, reason: { kind: "aborted", reason: "cancelled" } });
    expect(verifyLog(s.events).ok).toBe(true);
    expect(s.awaitingApproval).toBe(false);
    expect(approvalStatus(s, "c2")).toBe("closed");
  });
});

describe("forks and what the log says of one call", () => {
  test("a fork at an awaiting turn/end keeps the pending approvals, and each side decides on its own", () => {
    const parent = awaiting();
    const child = forkSession(parent, { id: "child" });
    expect(child.pendingApprovals().map((p) => p.callId)).toEqual(["c2", "c4"]);
    child.append("turn/start", { turn: 3, trigger: "approval" });
    child.append("approval/decision", { callId: "c2", approve: false });
    expect(parent.pendingApprovals().map((p) => p.callId)).toEqual(["c2", "c4"]);
    expect(child.pendingApprovals().map((p) => p.callId)).toEqual(["c4"]);
  });

  test("a fork's structure at an earlier boundary is the replayed one even past an awaiting end", () => {
    const parent = awaiting();
    parent.append("turn/start", { turn: 3, trigger: "approval" });
    parent.append("approval/decision", { callId: "c2", approve: true });
    parent.append("turn/end", { turn: 3, reason: { kind: "awaiting-approval" } });
    const child = forkSession(parent, { id: "child" });
    expect(child.pendingApprovals().map((p) => p.callId)).toEqual(["c4"]);
    expect(child.waitingCalls().map((c) => c.callId)).toEqual(["c2", "c3", "c4"]);
  });

  test("approvalStatus tells pending, decided, closed, not-requested and unknown apart", () => {
    const s = awaiting();
    s.append("turn/start", { turn: 3, trigger: "approval" });
    s.append("approval/decision", { callId: "c2", approve: true });
    expect(approvalStatus(s, "c2")).toBe("decided");
    expect(approvalStatus(s, "c4")).toBe("pending");
    expect(approvalStatus(s, "c3")).toBe("not-requested");
    expect(approvalStatus(s, "c1")).toBe("not-requested");
    expect(approvalStatus(s, "zz")).toBe("unknown");
  });
});

describe("questions to a person (input/request, input/response)", () => {
  function asked(): Session {
    const s = new LogDriver().turn({ prompt: "first", steps: [{ text: "ok" }] }).session;
    s.append("turn/start", { turn: 2, trigger: "send" });
    s.append("step/start", { turn: 2, step: 1 });
    s.append("assistant/message", { turn: 2, step: 1, content: [toolCall("q1", "ask_user", "{}"), toolCall("c2")] });
    s.append("input/request", { id: "q1", source: "ask_user", schema: { type: "string" }, message: "Which?" });
    return s;
  }

  test("a step may end with a question unanswered; the turn ends awaiting-input; the answer continues the held calls", () => {
    const s = asked();
    expect(code(() => s.append("input/request", { id: "q1", source: "x", schema: {}, message: "again" }))).toMatch(
      /already has an input request/,
    );
    s.append("step/end", { turn: 2, step: 1 });
    expect(code(() => s.append("turn/end", { turn: 2, reason: { kind: "awaiting-approval" } }))).toMatch(
      /no tool call awaits approval/,
    );
    s.append("turn/end", { turn: 2, reason: { kind: "awaiting-input" } });
    expect(s.awaitingInput).toBe(true);
    expect(s.pendingInputs().map((q) => [q.id, q.message])).toEqual([["q1", "Which?"]]);
    s.append("turn/start", { turn: 3, trigger: "approval" });
    expect(code(() => s.append("input/response", { id: "c2", value: "x" }))).toMatch(/no pending input request/);
    s.append("input/response", { id: "q1", value: "this one" });
    expect(code(() => s.append("input/response", { id: "q1", value: "that one" }))).toMatch(/already answered/);
    runHeld(s, "q1", "ask_user", "{}", "this one");
    runHeld(s, "c2", "read", "{}");
    s.append("turn/end", { turn: 3, reason: { kind: "completed" } });
    expect(verifyLog(s.events)).toMatchObject({ ok: true, issues: [] });
  });

  test("crash repair keeps an unanswered question waiting", () => {
    const s = asked();
    s.repair();
    expect(verifyLog(s.events).ok).toBe(true);
    expect(s.pendingInputs().map((q) => q.id)).toEqual(["q1"]);
    expect(s.waitingCalls().map((c) => [c.callId, c.input?.request.id])).toEqual([
      ["q1", "q1"],
      ["c2", undefined],
    ]);
  });
});
