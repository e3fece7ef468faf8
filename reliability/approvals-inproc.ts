// The approvals suite's in-process trials, on a JSONL store in a temp root:
//   race  two deciders on one pending call at once — two decide() calls on the agent, or the
//         agent and a second store instance (another writer: refused `locked` by the lock) —
//         exactly one decision is logged, the other gets a typed error, nothing else logged;
//   fork  a paused session is forked at its awaiting turn/end; parent and child decide the same
//         calls differently, at the same time, and each runs its own tools per its own log.
// Then every remaining call is decided, the turns complete, and each log is checked against the
// effects file (approvals-checks.ts).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { mulberry32 } from "../src/emulator/index.js";
import { type Agent, ApprovalError, createAgent, forkAgent, resumeAgent } from "../src/loop/index.js";
import { JsonlSessionStore, StoreError } from "../src/store/index.js";
import { checkApprovalLog } from "./approvals-checks.js";
import {
  type ApprovalsScript,
  approvalsAgentOptions,
  approvalsScript,
  approvalsTools,
  effectCounts,
} from "./fixtures/approvals-session.js";
import { check } from "./violation.js";

/** Decides every pending call of `agent` (approve with probability `p`) until the turn completes. */
async function finish(agent: Agent, random: () => number, by: string, p = 0.7): Promise<void> {
  for (let pending = agent.pendingApprovals(); pending.length > 0; pending = agent.pendingApprovals())
    await agent.decide(pending[0]!.callId, { approve: random() < p, by });
}

async function paused(store: JsonlSessionStore, script: ApprovalsScript, effectsFile: string): Promise<Agent> {
  const agent = createAgent({
    ...approvalsAgentOptions(script, approvalsTools(effectsFile)),
    sessionId: script.sessionId,
    store,
  });
  const outcome = await agent.send("go");
  check(outcome.reason.kind === "awaiting-approval", `the first turn ended ${outcome.reason.kind}`);
  return agent;
}

async function checked(store: JsonlSessionStore, id: string, effectsFile: string): Promise<string[]> {
  const { session } = await store.load(id, { readOnly: true });
  return checkApprovalLog(session.events, id, effectCounts(effectsFile));
}

/** Two deciders race on the first pending call. */
export async function raceTrial(seed: number): Promise<string[]> {
  const root = await mkdtemp(join(tmpdir(), "keelson-approvals-race-"));
  const effectsFile = join(root, "effects");
  const random = mulberry32(seed ^ 0xace);
  const script = approvalsScript(seed);
  const store = new JsonlSessionStore({ root: join(root, "sessions") });
  const other = new JsonlSessionStore({ root: join(root, "sessions") });
  try {
    const agent = await paused(store, script, effectsFile);
    const [first] = agent.pendingApprovals();
    const before = agent.session.length;
    const viaLock = random() < 0.5;
    const rival = viaLock
      ? resumeAgent(other, script.sessionId, approvalsAgentOptions(script, approvalsTools(effectsFile))).then((a) =>
          a.decide(first!.callId, { approve: false, by: "rival" }),
        )
      : agent.decide(first!.callId, { approve: false, by: "other" });
    const results = await Promise.allSettled([agent.decide(first!.callId, { approve: true, by: "one" }), rival]);
    const won = results.filter((r) => r.status === "fulfilled");
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
    check(won.length === 1 && lost.length === 1, `${won.length} deciders were accepted: ${String(lost[0]?.reason)}`);
    const reason = lost[0]!.reason as unknown;
    const typed =
      (reason instanceof StoreError && reason.code === "locked") ||
      (reason instanceof ApprovalError && reason.code === "already-decided");
    check(typed, `the losing decider got ${String(reason)}`);
    const decisions = agent.session.events
      .slice(before)
      .filter((e) => e.type === "approval/decision" && (e.data as { callId: string }).callId === first!.callId);
    check(decisions.length === 1, `${decisions.length} decisions logged for the raced call`);
    await finish(agent, random, "after-race");
    await agent.dispose();
    return [
      viaLock ? "race-refused-by-lock" : "race-already-decided",
      ...(await checked(store, script.sessionId, effectsFile)),
    ];
  } finally {
    await store.close();
    await other.close();
    await rm(root, { recursive: true, force: true });
  }
}

/** Forks the paused session; parent and child decide independently, at once. */
export async function forkTrial(seed: number): Promise<string[]> {
  const root = await mkdtemp(join(tmpdir(), "keelson-approvals-fork-"));
  const effectsFile = join(root, "effects");
  const random = mulberry32(seed ^ 0xf0f);
  const script = approvalsScript(seed);
  const store = new JsonlSessionStore({ root: join(root, "sessions") });
  try {
    const first = await paused(store, script, effectsFile);
    const pending = first.pendingApprovals().map((p) => p.callId);
    await first.dispose();
    const options = approvalsAgentOptions(script, approvalsTools(effectsFile));
    const child = await forkAgent(store, script.sessionId, { ...options, sessionId: `${script.sessionId}-fork` });
    check(
      JSON.stringify(child.pendingApprovals().map((p) => p.callId)) === JSON.stringify(pending),
      "the fork does not keep the parent's pending approvals",
    );
    const parent = await resumeAgent(
      store,
      script.sessionId,
      approvalsAgentOptions(script, approvalsTools(effectsFile)),
    );
    await Promise.all([finish(parent, random, "parent", 0.5), finish(child, random, "child", 0.5)]);
    await Promise.all([parent.dispose(), child.dispose()]);
    return [
      "forked",
      ...(await checked(store, script.sessionId, effectsFile)),
      ...(await checked(store, child.session.id, effectsFile)),
    ];
  } finally {
    await store.close();
    await rm(root, { recursive: true, force: true });
  }
}
