// An agent's answers to its pauses for a person — `decide`, `respond`, `streamAnswers` — and its
// pending lists: the part of `Agent` that is `AgentPauses`. Every answer of a batch is checked
// against the log first (approval-decision.ts: pending? well-formed? matching the question's
// schema? accepted by `approval/decide`?), and on any refusal nothing is queued or logged; then
// the batch is queued as one item, so one turn claims and logs all of it (pause-claims.ts,
// turn.ts). `streamAnswers` hands back that turn's stream, as `agent.stream` does for a prompt.
import type { HookBus } from "../hooks/index.js";
import type { PendingApproval, PendingInput, Session } from "../session/index.js";
import type { ToolRegistry } from "../tools/index.js";
import { checkStillPending, type PauseAnswer, refusalOf } from "./approval-decision.js";
import {
  type AgentPauses,
  type AnswerBatch,
  type AnswerStreamOptions,
  type ApprovalDecision,
  ApprovalError,
  type InputAnswer,
} from "./approval-types.js";
import { type CheckedBatch, checkBatch, checkEditedArguments } from "./answer-batch-check.js";
import type { QueuedDecision, Settle } from "./inbox.js";
import { checkStreamOptions } from "./stream-options.js";
import { sessionPauses, type SessionPauses } from "../store/index.js";
import { answersSubagent, checkThroughSubagents, streamThroughSubagents } from "./subagent-answers.js";
import { actInSubagent, refuseWhileChildWaits, storedChild, withSession } from "./subagent-decide.js";
import type { TurnContext } from "./turn-state.js";
import type { TurnStreamPort } from "./turn-stream.js";
import { type Agent, type AgentHooks, LoopError, type TurnOutcome, type TurnStream } from "./types.js";

/** What the pause methods need from their agent. */
export interface PausePort {
  readonly agent: Agent;
  readonly session: Session;
  readonly hooks: HookBus<AgentHooks>;
  readonly tools: ToolRegistry;
  /** The agent's turn context: a subagent's pause is decided through it (subagent-decide.ts). */
  readonly context: TurnContext;
  readonly disposed: () => boolean;
  /** Queues a checked batch for the next turn (rejecting it when the agent is disposed). */
  readonly enqueue: (item: QueuedDecision) => void;
  /** A turn stream over the agent whose turn is queued by `enqueue` (`openTurnStream`). */
  readonly openStream: (enqueue: TurnStreamPort["enqueue"], options?: AnswerStreamOptions) => TurnStream;
  /** A batch being admitted was queued or refused: the agent may be idle now. */
  readonly admitted: () => void;
}

export class AgentPauseAnswers implements AgentPauses {
  readonly #port: PausePort;
  /** What the subagents of held calls wait for, as last read (`refresh`): stand-ins, then the descendants' requests. */
  #children: { readonly standIns: ReadonlyMap<string, string> } & SessionPauses = NO_CHILDREN;
  /** Batches taken (`decide`, `respond`, `streamAnswers`) whose `approval/decide` listeners still run: not queued yet. */
  #admitting = 0;

  constructor(port: PausePort) {
    this.#port = port;
  }

  /** The model's context window, where the provider knows it (answers far over it are refused). */
  #window(): number | undefined {
    const { agent } = this.#port;
    return agent.provider.contextWindow?.(agent.model);
  }

  /**
   * Whether answers were taken and are not queued yet (their listeners still run): accepted input,
   * as a queued prompt is — a follow opened right after `decide()` waits for their turn.
   */
  get admitting(): boolean {
    return this.#admitting > 0;
  }

  /** Counts a batch as being admitted; the function returned ends that (once). */
  #admit(): () => void {
    this.#admitting++;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.#admitting--;
      this.#port.admitted();
    };
  }

  /** This session's pending approvals (a subagent's stand-in marked `subagent`), then its subagents' (with `path`). */
  pendingApprovals(): PendingApproval[] {
    const { standIns, approvals } = this.#children;
    const own = this.#port.session.pendingApprovals().map((request) => {
      const child = standIns.get(request.callId);
      return child === undefined ? request : { ...request, subagent: child };
    });
    return [...own, ...approvals];
  }

  pendingInputs(): PendingInput[] {
    return [...this.#port.session.pendingInputs(), ...this.#children.inputs];
  }

  /**
   * Reads again what the subagents of this session's held calls wait for (after every turn, and
   * after answers went to a child): `pendingApprovals()` / `pendingInputs()` list it. Never throws
   * (a child that cannot be read is reported on `agent/error` and left out).
   */
  refresh(): Promise<void> {
    if (this.#port.session.pendingApprovals().length === 0) {
      this.#children = NO_CHILDREN;
      return NOTHING_PENDING; // after every turn: no async frame when no call waits
    }
    return this.#refreshChildren();
  }

  async #refreshChildren(): Promise<void> {
    const { session, context } = this.#port;
    try {
      const all = await sessionPauses(session, (id) => storedChild(context, id));
      const standIns = new Map<string, string>();
      for (const request of all.approvals)
        if (request.path === undefined && request.subagent !== undefined)
          standIns.set(request.callId, request.subagent);
      this.#children = {
        standIns,
        approvals: all.approvals.filter((request) => request.path !== undefined),
        inputs: all.inputs.filter((request) => request.path !== undefined),
      };
    } catch (error) {
      this.#port.hooks.report(error, "subagent pauses");
    }
  }

  async decide(callId: string, decision: ApprovalDecision): Promise<TurnOutcome> {
    const target = decision?.session;
    if (target !== undefined && target !== this.#port.session.id)
      return this.#inSubagent(target, decision.by, (child, deeper) =>
        child.decide(callId, withSession(decision, deeper)),
      );
    return this.#answerNow({ decisions: [{ ...decision, callId }] });
  }

  async respond(id: string, answer: InputAnswer): Promise<TurnOutcome> {
    const target = answer?.session;
    if (target !== undefined && target !== this.#port.session.id)
      return this.#inSubagent(target, answer.by, (child, deeper) => child.respond(id, withSession(answer, deeper)));
    return this.#answerNow({ responses: [{ ...answer, id }] });
  }

  /** A decision or answer for a descendant session: there first, then this session's held call (subagent-decide.ts). */
  async #inSubagent(target: string, by: string | undefined, act: (child: Agent, deeper?: string) => Promise<unknown>) {
    if (this.#port.disposed()) throw new LoopError("disposed", "the agent is disposed");
    try {
      return await actInSubagent(
        this.#port.context,
        target,
        by,
        act,
        (callId, decision) => this.decide(callId, decision),
        (cancel) => this.#inFlight(cancel),
      );
    } finally {
      await this.refresh();
    }
  }

  /**
   * Answers going through subagents while this agent runs no turn of its own (a child's
   * continuation is running): what `agent.cancel()` cancels then, instead of closing this
   * session's pause under a child that still runs (found in review). Each entry cancels one.
   */
  readonly #throughChildren = new Set<(reason: string) => void>();

  /** Registers `cancel` as in flight; returns its removal. */
  #inFlight(cancel: (reason: string) => void): () => void {
    this.#throughChildren.add(cancel);
    return () => this.#throughChildren.delete(cancel);
  }

  /** Cancels the answers in flight through subagents; false when there are none. */
  cancelInFlight(reason: string): boolean {
    if (this.#throughChildren.size === 0) return false;
    for (const cancel of [...this.#throughChildren]) cancel(reason);
    return true;
  }

  async checkAnswers(batch: AnswerBatch): Promise<void> {
    if (this.#port.disposed()) throw new LoopError("disposed", "the agent is disposed");
    if (!answersSubagent(this.#port.session.id, batch)) {
      await checkEditedArguments(
        checkBatch(this.#port.session, this.#port.tools, batch, this.#window()),
        this.#port.tools,
      );
      return;
    }
    await checkThroughSubagents(this.#port.context, batch);
  }

  streamAnswers(batch: AnswerBatch, options?: AnswerStreamOptions): TurnStream {
    checkStreamOptions(options ?? {}, undefined, "streamAnswers"); // the options first, as `stream` checks them
    if (answersSubagent(this.#port.session.id, batch)) {
      if (this.#port.disposed()) throw new LoopError("disposed", "the agent is disposed");
      const stream = streamThroughSubagents(
        {
          ctx: this.#port.context,
          own: (own, o) => this.#ownStream(own, o),
          settled: () => this.refresh(),
        },
        batch,
        options,
      );
      const done = this.#inFlight((reason) => stream.cancel(reason));
      stream.outcome.then(done, done);
      return stream;
    }
    return this.#ownStream(batch, options);
  }

  #ownStream(batch: AnswerBatch, options?: AnswerStreamOptions): TurnStream {
    const checked = checkBatch(this.#port.session, this.#port.tools, batch, this.#window());
    const answers = this.#admitted(checked);
    answers.catch(() => {}); // handed to the stream's settle
    return this.#port.openStream((settle, onStart) => {
      const release = this.#admit();
      answers.then(
        (list) => {
          this.#queue(list, settle, onStart);
          release();
        },
        (error: unknown) => {
          release();
          settle.reject(error);
        },
      );
    }, options);
  }

  async #answerNow(batch: AnswerBatch): Promise<TurnOutcome> {
    if (this.#port.disposed()) throw new LoopError("disposed", "the agent is disposed");
    const release = this.#admit();
    let answers: PauseAnswer[];
    try {
      answers = await this.#admitted(checkBatch(this.#port.session, this.#port.tools, batch, this.#window()));
    } catch (error) {
      release();
      throw error;
    }
    return new Promise((resolve, reject) => {
      this.#queue(answers, { resolve, reject });
      release();
    });
  }

  #queue(answers: readonly PauseAnswer[], settle: Settle<TurnOutcome>, onStart?: QueuedDecision["onStart"]): void {
    this.#port.enqueue({ answers, settle, ...(onStart === undefined ? {} : { onStart }) });
  }

  /**
   * Runs `approval/decide` for each decision (a refusal refuses the batch), then checks every
   * answer again — one may have been answered while the listeners ran. The answers in the order
   * they were asked.
   */
  async #admitted(checked: CheckedBatch): Promise<PauseAnswer[]> {
    const { agent, hooks, session, context } = this.#port;
    await checkEditedArguments(checked, this.#port.tools);
    for (const { request, decision } of checked.decisions) {
      // A held subagent call is approved once its child waits for nothing (subagent-decide.ts).
      const waits = decision.approve ? refuseWhileChildWaits(context, request.callId) : undefined;
      if (waits !== undefined) await waits;
      const refusal = await refusalOf(hooks, agent, request, decision, false);
      if (refusal !== undefined)
        throw new ApprovalError("refused", `the decision for call ${request.callId} was refused: ${refusal}`);
    }
    const asked: { readonly seq: number; readonly answer: PauseAnswer }[] = [
      ...checked.decisions.map(({ request, decision }) => ({
        seq: request.requestSeq,
        answer: { type: "approval/decision", data: decision } as const,
      })),
      ...checked.responses.map(({ request, answer }) => ({ seq: request.requestSeq, answer })),
    ];
    const answers = asked.sort((a, b) => a.seq - b.seq).map((a) => a.answer);
    for (const answer of answers) checkStillPending(session, answer);
    return answers;
  }
}

const NOTHING_PENDING: Promise<void> = Promise.resolve();
const NO_CHILDREN = { standIns: new Map<string, string>(), approvals: [], inputs: [] } as const;
