// What the agent host checks at its doors, before anything is queued or the store is touched:
// session ids, prompts (the agent's own checks, made early), option objects (known keys, valid
// values), answers' shapes, and a paused session's refusal of a prompt.
import { previewJson, previewName } from "../json/index.js";
import {
  type Agent,
  type AgentProfile,
  type AnswerBatch,
  ApprovalError,
  answerLists,
  checkStreamOptions,
  InputError,
  LoopError,
  promptContent,
  promptOverWindow,
} from "../loop/index.js";
import { isSafeSessionId } from "../session/index.js";
import { HostError } from "./types.js";

export function checkSessionId(sessionId: unknown): asserts sessionId is string {
  if (typeof sessionId !== "string" || !isSafeSessionId(sessionId))
    throw new HostError("invalid-id", `${previewJson(sessionId)} is not a valid session id`);
}

/**
 * The agent's own checks of a prompt (loop/prompt-content.ts), made before the prompt is queued:
 * its shape, and that it could fit the context window of `target`'s model (when the door knows
 * the provider: not a profile's factory — that agent checks when it takes the prompt).
 */
export function checkPrompt(
  sessionId: string,
  prompt: unknown,
  target: Pick<AgentProfile, "provider" | "model"> | undefined,
): void {
  const what = `the prompt for session ${sessionId}`;
  const parts = promptContent(prompt, what, (message) => new HostError("invalid-prompt", message));
  if (target === undefined || typeof target.provider === "function") return;
  const tooLarge = promptOverWindow(parts, target.provider, target.model, what);
  if (tooLarge !== undefined) throw new HostError("prompt-too-large", tooLarge);
}

/**
 * The options each door takes: a key no door knows is a misspelling, refused rather than ignored.
 * The prompt doors share one set (a `HostStreamOptions` object may be passed to `send` too: its
 * `maxBufferedChars` is then unused, not an error).
 */
const KNOWN = {
  prompt: ["profile", "ifBusy", "signal", "maxBufferedChars"],
  stream: ["profile", "ifBusy", "signal", "maxBufferedChars"],
  follow: ["from", "maxBufferedChars"],
  close: ["mode"],
} as const;

/**
 * A door's options: an object (or undefined) holding only the keys that door takes
 * (`HostError('invalid-options')` naming the stray key), with a valid `maxBufferedChars` and
 * `signal` (the agent's own check, loop/stream-options.ts) and `ifBusy`.
 */
export function checkOptions(options: unknown, door: keyof typeof KNOWN): void {
  if (options === undefined) return;
  if (typeof options !== "object" || options === null || Array.isArray(options))
    throw new HostError("invalid-options", `the options must be an object, got ${previewJson(options, 80)}`);
  const known: readonly string[] = KNOWN[door];
  for (const key of Object.keys(options))
    if (!known.includes(key))
      throw new HostError(
        "invalid-options",
        `unknown option ${previewJson(key, 60)} (this call takes ${known.map((k) => `\`${k}\``).join(", ")})`,
      );
  checkStreamOptions(options, (message) => new HostError("invalid-options", message));
  const { ifBusy } = options as { ifBusy?: unknown };
  if (ifBusy !== undefined && ifBusy !== "queue" && ifBusy !== "reject")
    throw new HostError("invalid-options", `ifBusy must be "queue" or "reject", got ${previewJson(ifBusy)}`);
}

/** What an answer door is given, shaped as the agent will take it (its own errors: nothing is queued). */
export type AnswerShape =
  | { readonly kind: "batch"; readonly batch: AnswerBatch }
  | { readonly kind: "decision"; readonly callId: unknown; readonly decision: unknown }
  | { readonly kind: "response"; readonly id: unknown; readonly answer: unknown }
  | { readonly kind: "cancel"; readonly reason: unknown };

/** Refuses an answer the agent would refuse before looking at the log, with the agent's own error. */
export function checkAnswerShape(shape: AnswerShape): void {
  switch (shape.kind) {
    case "batch":
      answerLists(shape.batch); // LoopError('invalid-options'), as agent.streamAnswers throws it
      return;
    case "decision":
      if (typeof shape.callId !== "string")
        throw new ApprovalError("unknown-call", `the call id must be a string, got ${previewJson(shape.callId, 80)}`);
      if (typeof shape.decision !== "object" || shape.decision === null)
        throw new ApprovalError(
          "invalid-decision",
          `the decision for call ${previewName(shape.callId)} needs approve: true or false`,
        );
      return;
    case "response":
      if (typeof shape.id !== "string")
        throw new InputError("unknown-request", `the question id must be a string, got ${previewJson(shape.id, 80)}`);
      if (typeof shape.answer !== "object" || shape.answer === null)
        throw new InputError("invalid-value", `the answer to ${previewName(shape.id)} must be { value, by? }`);
      return;
    case "cancel":
      if (typeof shape.reason !== "string")
        throw new HostError(
          "invalid-options",
          `the cancel reason must be a string, got ${previewJson(shape.reason, 80)}`,
        );
  }
}

/**
 * The loop's refusal of a prompt while the open agent's session waits for a person
 * (`LoopError('awaiting-approval')`, as the agent's own claim refuses it: one error whether the
 * session is open or not), or undefined.
 */
export function awaitingPerson(sessionId: string, agent: Agent | undefined): LoopError | undefined {
  const session = agent?.session;
  if (session === undefined || session.waitingCalls().length === 0) return undefined;
  const waiting = [
    ...session.pendingApprovals().map((p) => `approval of ${p.callId}`),
    ...session.pendingInputs().map((p) => `an answer to ${p.id}`),
  ];
  return new LoopError(
    "awaiting-approval",
    `session ${sessionId} awaits ${waiting.join(", ")}: decide or answer (host.decide, host.respond, host.streamAnswers) or cancel the paused turn (host.cancel) first`,
  );
}
