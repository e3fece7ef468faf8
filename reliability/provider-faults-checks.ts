// The properties one provider-faults session must hold, as a list of problems (empty = held):
// the log verifies and every turn is closed, completed or ended with a typed error; every attempt
// is accounted for (steps dispatched + logged retries = requests the adapter got = requests the
// wire carried), each one is the loop-built request the log reconstructs for its step and its
// wire body is, as JSON text, that reconstruction serialized by the adapter's own mapping; each attempt's
// logged outcome (retry code and delay, final error, success) is the one its injected fault
// implies; and no output of a failed attempt reaches the log, while every successful one does.
import type { FaultKind, RecordedRequest } from "../src/emulator/index.js";
import { canonicalJson, type JsonValue } from "../src/json/index.js";
import { type ProviderRequest, toAnthropicParams } from "../src/llm/index.js";
import { type ChatWireOptions, toChatCompletionsParams } from "../src/llm/openai/index.js";
import { isLoopBuilt, loggedPartOf } from "../src/loop/index.js";
import { type ReconstructedRequest, reconstructRequests, verifyLog } from "../src/reconstruct/index.js";
import { isPairingBalanced, type SessionEvent } from "../src/session/index.js";
import { expectedOutcome } from "./provider-faults-outcomes.js";
import { type Flavor, MARKER, marker, type SessionRun } from "./provider-faults-session.js";

/** One attempt as the wire and the log saw it. */
export interface Attempt {
  readonly index: number;
  readonly fault: FaultKind | undefined;
  /** `ok`, or the error code the log holds for it (a retry's code, or the turn's final error). */
  readonly outcome: string;
  /**
   * A `stalled` attempt whose fault (or none) implies another outcome: the stall timer fired on a
   * response slowed by a loaded machine. Tolerated (the log must still account for it) and counted.
   */
  readonly spurious: boolean;
}

export interface SessionVerdict {
  readonly problems: string[];
  readonly attempts: readonly Attempt[];
}

/** Wire options as OpenAICompatibleProvider derives them from its flavor. */
const CHAT_WIRE: { readonly [F in Exclude<Flavor, "anthropic">]: ChatWireOptions } = {
  openai: {
    systemRole: "system",
    maxTokensField: "max_completion_tokens",
    promptCacheKey: true,
    reasoningReplay: "none",
    outputMode: "json_schema",
  },
  deepseek: {
    systemRole: "system",
    maxTokensField: "max_tokens",
    promptCacheKey: false,
    reasoningReplay: "tool-turns",
    outputMode: "json_object",
  },
};

/**
 * The body the adapter sends for a reconstructed request, as the JSON text the SDK serializes
 * (JSON.stringify, key order included). The emulator keeps the body it parsed; re-stringified, it
 * must be this exact text — byte equality of what was sent with what the log implies.
 */
function wireBody(flavor: Flavor, r: ReconstructedRequest, sessionId: string): string {
  const prefixLength = r.header.messagePrefix?.length ?? 0;
  const request = {
    ...r.request,
    signal: new AbortController().signal,
    sessionId,
    ...(prefixLength > 0 ? { prefixLength } : {}),
  } as ProviderRequest;
  const params =
    flavor === "anthropic"
      ? { ...toAnthropicParams(request, { defaultMaxTokens: 8192 }), stream: true }
      : toChatCompletionsParams(request, CHAT_WIRE[flavor]);
  return JSON.stringify(params);
}

/** The backoff the loop logs before retrying after failed attempt `n` (jitter centred, retry-after 1 s on 429). */
const expectedDelay = (outcome: string, n: number): number =>
  outcome === "rate-limited" ? 1000 : Math.min(30_000, 1000 * 2 ** (n - 1));

// `protocol` here is a garbled event (the suite injects no well-formed protocol breach): retried.
const RETRYABLE = new Set(["rate-limited", "overloaded", "server-error", "connection", "stalled", "protocol"]);

const ofStep =
  (turn: number, step: number) =>
  (e: SessionEvent): boolean => {
    const d = e.data as { turn?: number; step?: number };
    return d.turn === turn && d.step === step;
  };

export function checkSession(run: SessionRun): SessionVerdict {
  const problems: string[] = [];
  const { events, plan, recorded, sent } = run;
  const flavor = plan.flavor;
  const report = verifyLog(events);
  for (const issue of report.issues)
    problems.push(`verifyLog ${issue.code} at seq ${issue.seq ?? "-"}: ${issue.message}`);
  const ends = events.filter((e): e is SessionEvent<"turn/end"> => e.type === "turn/end");
  if (
    ends.length !== plan.turns.length ||
    events.filter((e) => e.type === "turn/start").length !== plan.turns.length ||
    events.at(-1)?.type !== "turn/end"
  ) {
    problems.push(`${plan.turns.length} turns sent, ${ends.length} turn/end logged, last event ${events.at(-1)?.type}`);
  }
  for (const [i, end] of ends.entries()) {
    const reason = end.data.reason;
    if (JSON.stringify(reason) !== JSON.stringify(run.outcomes[i]?.reason))
      problems.push(
        `turn ${i + 1}: send() resolved ${JSON.stringify(run.outcomes[i]?.reason)}, log says ${JSON.stringify(reason)}`,
      );
    if (reason.kind === "error" && !(RETRYABLE.has(reason.code ?? "") || reason.code === "protocol"))
      problems.push(`turn ${i + 1} ended with an untyped or unexpected error ${reason.code}: ${reason.message}`);
    else if (reason.kind !== "completed" && reason.kind !== "error")
      problems.push(`turn ${i + 1} ended ${reason.kind}`);
  }
  // Transient faults never end a turn: the retries outlast every run of them. An outage (the forced
  // kind on every attempt of one step) ends exactly that turn, at that step, with a typed error.
  const forcedStep = events.filter((e): e is SessionEvent<"step/start"> => e.type === "step/start")[
    plan.forced.atStep - 1
  ]?.data;
  for (const [i, end] of ends.entries()) {
    const reason = end.data.reason;
    const outageTurn = plan.outage && forcedStep?.turn === i + 1;
    if (outageTurn && !(reason.kind === "error" && reason.step === forcedStep.step))
      problems.push(
        `turn ${i + 1}: ${plan.forced.count} × ${plan.forced.kind} at step ${forcedStep.step} spent the retry budget, yet the turn ended ${JSON.stringify(reason)}`,
      );
    else if (!outageTurn && reason.kind !== "completed")
      problems.push(
        `turn ${i + 1} ended ${reason.kind}${reason.kind === "error" ? ` (${reason.code}: ${reason.message})` : ""} though no run of faults outlasted its ${plan.maxAttempts} attempts`,
      );
  }
  if (plan.outage && forcedStep === undefined) problems.push(`the outage's step ${plan.forced.atStep} never started`);
  if (!isPairingBalanced(run.history))
    problems.push("the derived history has a tool call without its result (or a result without its call)");

  // Every attempt: step dispatched once, plus once per logged retry.
  const rebuilt = reconstructRequests(events);
  const plannedAttempts = rebuilt.flatMap((r) => {
    const retries = events.filter(
      (e): e is SessionEvent<"llm/retry"> => e.type === "llm/retry" && ofStep(r.turn, r.step)(e),
    );
    return Array.from({ length: retries.length + 1 }, (_, i) => ({
      r,
      n: i + 1,
      retry: retries[i],
      last: i === retries.length,
    }));
  });
  if (plannedAttempts.length !== sent.length || sent.length !== recorded.length) {
    problems.push(
      `attempts: ${rebuilt.length} steps + ${plannedAttempts.length - rebuilt.length} logged retries = ${plannedAttempts.length}, adapter got ${sent.length}, wire carried ${recorded.length}`,
    );
    return { problems, attempts: [] };
  }

  const attempts: Attempt[] = [];
  const succeeded = new Set<number>();
  for (const [k, { r, n, retry, last }] of plannedAttempts.entries()) {
    const where = `request ${k} (turn ${r.turn} step ${r.step} attempt ${n})`;
    const request = sent[k]!;
    const wire: RecordedRequest = recorded[k]!;
    if (!isLoopBuilt(request)) problems.push(`${where}: the adapter got a request the loop did not build`);
    if (canonicalJson(loggedPartOf(request)) !== canonicalJson(r.request as unknown as JsonValue))
      problems.push(`${where}: the request sent differs from the one the log reconstructs`);
    if (wireBody(flavor, r, run.sessionId) !== JSON.stringify(wire.body))
      problems.push(`${where}: the wire body differs from the reconstruction re-serialized by the adapter`);

    const expected = expectedOutcome(wire.fault, flavor);
    const assistant = events.find(
      (e): e is SessionEvent<"assistant/message"> => e.type === "assistant/message" && ofStep(r.turn, r.step)(e),
    );
    let outcome: string;
    if (!last) outcome = retry!.data.code;
    else if (assistant !== undefined) outcome = "ok";
    else {
      const end = ends.find((e) => e.data.turn === r.turn)?.data.reason;
      outcome =
        end?.kind === "error" && end.step === r.step
          ? (end.code ?? "untyped")
          : `no result (turn ended ${JSON.stringify(end)})`;
    }
    const spurious = outcome === "stalled" && expected !== "stalled";
    attempts.push({ index: k, fault: wire.fault, outcome, spurious });
    if (outcome !== expected && !spurious)
      problems.push(`${where}: fault ${wire.fault ?? "none"} should end ${expected}, the log says ${outcome}`);
    if (!last && (retry!.data.attempt !== n || retry!.data.delayMs !== expectedDelay(outcome, n)))
      problems.push(
        `${where}: llm/retry ${JSON.stringify(retry!.data)} (expected attempt ${n}, delay ${expectedDelay(outcome, n)})`,
      );
    if (last && assistant === undefined && RETRYABLE.has(outcome) && n !== plan.maxAttempts)
      problems.push(`${where}: a retryable ${outcome} ended the step after ${n} of ${plan.maxAttempts} attempts`);
    if (last && assistant !== undefined) {
      succeeded.add(k);
      if (!JSON.stringify(assistant.data.content).includes(marker(k)))
        problems.push(`${where}: the logged answer is not the one this attempt streamed`);
    }
  }
  // The derived history answers only with successful attempts' output (reasoning, text, tool calls).
  for (const m of run.history) {
    if (m.role !== "assistant") continue;
    const marks = [...JSON.stringify(m.content).matchAll(MARKER)].map(([, index]) => Number(index));
    if (marks.length === 0 || marks.some((index) => !succeeded.has(index)))
      problems.push(`a history message holds output of attempts [${marks}], not one successful attempt's`);
  }
  // Only successful attempts' output is durable: markers of failed ones appear nowhere.
  for (const [, index] of JSON.stringify(events).matchAll(MARKER)) {
    if (!succeeded.has(Number(index)))
      problems.push(
        `output of failed request ${index} (fault ${recorded[Number(index)]?.fault ?? "none"}) reached the log`,
      );
  }
  return { problems: [...new Set(problems)], attempts };
}
