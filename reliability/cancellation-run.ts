// Runs one cancellation trial: warm-up turns (on the same instance, or on an earlier one that
// is disposed and resumed), then the turn the cancel or dispose lands in (acting the moment the
// rig reports the point reached), then the next turn — on the same agent after a cancel, on a
// resumed instance (`resumeAgent` over the JSONL store) after a dispose. Records what the checks
// need; the only awaits are on the rig's deferreds and the store.
import type { ProviderRequest } from "../src/llm/index.js";
import { type Agent, type AgentStatus, createAgent, resumeAgent, type TurnOutcome } from "../src/loop/index.js";
import type { Message } from "../src/messages/index.js";
import type { SessionEvent } from "../src/session/index.js";
import type { SessionStore } from "../src/store/index.js";
import { CANCEL_REASON, type CancelPlan, cancelTurn, INJECTED, prompt } from "./cancellation-plan.js";
import { buildRig } from "./cancellation-rig.js";

/** How `send` of the cancelled turn settled: its outcome, or the code it was rejected with. */
export type Settled = { readonly outcome: TurnOutcome } | { readonly rejected: string };

export interface TrialRun {
  readonly plan: CancelPlan;
  /** Problems seen while driving (a point never reached, a disposed agent still serving). */
  readonly problems: string[];
  readonly warm: readonly TurnOutcome[];
  readonly cancelled: Settled;
  /** The planned inject: `logged` (resolved), the code it was rejected with, `pending` if it never settled, or absent. */
  readonly injected: string | undefined;
  /** Whether a `whenIdle()` asked for at the cancel had resolved by the end of the trial. */
  readonly idled: boolean;
  readonly after: Settled;
  /** The cancelled instance's status once its turn settled. */
  readonly status: AgentStatus;
  /** The cancelled instance's log when the trial ended (after a dispose: what it held when disposed). */
  readonly cancelledEvents: readonly SessionEvent[];
  /** The log the trial ended with, and the seq at which each loop instance took it over. */
  readonly events: readonly SessionEvent[];
  readonly instanceStarts: readonly number[];
  readonly history: readonly Message[];
  /** Every request the model received, across instances. */
  readonly requests: readonly ProviderRequest[];
  readonly compositions: number;
}

const settle = (promise: Promise<TurnOutcome>): Promise<Settled> =>
  promise.then(
    (outcome) => ({ outcome }),
    (error: unknown) => ({ rejected: String((error as { code?: unknown } | null)?.code ?? error) }),
  );

/** Points acted on synchronously (from a `session/event` listener, or right after `send`). */
const SYNC_POINTS = new Set(["between-tools", "post-step", "turn-end", "queued"]);

export async function runTrial(plan: CancelPlan, store: SessionStore): Promise<TrialRun> {
  const problems: string[] = [];
  const rig = buildRig(plan);
  const instanceStarts = [0];
  let agent = createAgent({ ...rig.options, ...(plan.store ? { store } : {}) });
  const resume = async (from: Agent): Promise<Agent> => {
    const next = await resumeAgent(store, from.session.id, rig.options);
    instanceStarts.push(next.session.events.length);
    return next;
  };

  const warm: TurnOutcome[] = [];
  for (let t = 1; t <= plan.warmTurns; t++) warm.push(await agent.send(prompt(t, t % 2 === 1 ? [1] : [2, 1])));
  if (plan.resumed) {
    await agent.dispose();
    agent = await resume(agent);
  }

  const target = agent;
  let acted = false;
  let disposing: Promise<void> | undefined;
  // Never awaited: a lost inject would hang the trial. Its state is read once everything is over.
  let injected: string | undefined;
  let idled = false;
  const act = (): void => {
    if (acted) return;
    acted = true;
    void target.whenIdle().then(() => (idled = true));
    if (plan.inject) {
      injected = "pending";
      target.inject(INJECTED).then(
        () => (injected = "logged"),
        (error: unknown) => (injected = String((error as { code?: unknown } | null)?.code ?? error)),
      );
    }
    if (plan.action !== "dispose") target.cancel(CANCEL_REASON);
    if (plan.action !== "cancel") disposing = target.dispose();
  };
  rig.attach(target, act);
  const sending = settle(target.send(prompt(cancelTurn(plan), plan.rounds)));
  if (plan.point === "queued") act();
  else if (!SYNC_POINTS.has(plan.point)) {
    const first = await Promise.race([
      rig.hold.reached.then(() => "reached" as const),
      sending.then(() => "ended" as const),
    ]);
    if (first === "ended") problems.push(`the turn ended before reaching ${plan.point}`);
    act();
    if (plan.style === "release") rig.hold.release();
  }
  const cancelled = await sending;
  await disposing;
  rig.hold.release(); // an abort-aware listener resumed on the abort; this frees a tool the pipeline left behind
  if (!acted) problems.push(`the turn ended without reaching ${plan.point}`);
  const status = target.status;

  if (plan.action !== "cancel") {
    const late = await settle(target.send("too late"));
    if (!("rejected" in late && late.rejected === "disposed"))
      problems.push(`a disposed agent answered send(): ${JSON.stringify(late)}`);
    agent = await resume(target);
  }
  const after = await settle(agent.send(prompt(cancelTurn(plan) + 1, [1])));
  await agent.dispose();
  await new Promise((resolve) => setImmediate(resolve)); // lets a settled inject's callback run
  return {
    plan,
    problems,
    warm,
    cancelled,
    injected,
    idled,
    after,
    status,
    cancelledEvents: target.session.events,
    events: agent.session.events,
    instanceStarts,
    history: agent.session.deriveMessages(),
    requests: rig.scripted.requests,
    compositions: rig.compositions(),
  };
}
