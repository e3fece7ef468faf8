// Answers from a person while the tools of a step run: the live answerers (`input/ask`, the
// agent's `answerer`) asked about a logged `input/request`, and `ToolContext.ask` for one run of a
// call — a question asked while the call runs (an MCP server's elicitation), logged with the
// call's id as `callId`, answered live, or left unanswered: the call is then suspended and runs
// again once answered, where the same questions are answered from the log (decision 0022).
import { canonicalJson, type JsonValue } from "../json/index.js";
import type { InputState, PendingInput } from "../session/index.js";
import { checkedAnswer, type LoggedAnswer } from "./approval-decision.js";
import type { InputReply } from "./approval-types.js";
import type { TurnContext } from "./turn-state.js";

/** The call a question is asked for: its id, its tool, and the questions it asked in earlier runs. */
interface AskingCall {
  readonly callId: string;
  readonly name: string;
  readonly asked?: readonly InputState[];
}

/** A logged request as the live deciders see it: its payload, where and when it was logged. */
export function pending<T extends object>(event: {
  readonly seq: number;
  readonly time: number;
  readonly data: T;
}): T & { readonly requestSeq: number; readonly requestedAt: number } {
  return Object.freeze({ ...event.data, requestSeq: event.seq, requestedAt: event.time });
}

/** Asks the live answerers; no reply, one that fails the schema, or a throwing listener is no answer. */
export async function answerLive(
  ctx: TurnContext,
  request: PendingInput,
  signal: AbortSignal,
): Promise<LoggedAnswer | undefined> {
  const { agent, hooks } = ctx;
  let reply: InputReply;
  try {
    reply = await hooks.waterfall("input/ask", { agent, request, signal }, () =>
      ctx.answerer === undefined ? Promise.resolve(undefined) : ctx.answerer(request, signal),
    );
  } catch (error) {
    hooks.report(error, "input/ask");
    return undefined;
  }
  if (reply === undefined || reply === null || signal.aborted) return undefined;
  try {
    return checkedAnswer(request, reply);
  } catch (error) {
    hooks.report(error, "input/ask");
    return undefined;
  }
}

/**
 * `ToolContext.ask` for one run of `call`: a question the call already asked and had answered
 * (same message and schema, first unused in the order asked) is answered from the log; a new one
 * is logged (`input/request` with `callId`) and put to the live answerers — answered, it is
 * logged and returned; unanswered, the call is suspended and every later question of this run
 * gets `undefined` at once.
 */
export function askDuring(
  ctx: TurnContext,
  call: AskingCall,
  signal: AbortSignal,
): {
  ask: (q: { message: string; schema?: PendingInput["schema"] }) => Promise<JsonValue | undefined>;
  suspended(): boolean;
  done(): void;
} {
  // A call that asked nothing yet (nearly all) skips the filter (one empty array, not two).
  const answered = call.asked === undefined ? [] : call.asked.filter((q) => q.response !== undefined);
  let asked = call.asked?.length ?? 0;
  let suspended = false;
  let finished = false;
  const ask = async (question: {
    message: string;
    schema?: PendingInput["schema"];
  }): Promise<JsonValue | undefined> => {
    if (suspended || finished || signal.aborted) return undefined;
    const schema = question.schema ?? { type: "string" };
    const key = canonicalJson(schema);
    const logged = answered.findIndex(
      (q) => q.request.message === question.message && canonicalJson(q.request.schema) === key,
    );
    if (logged >= 0) return answered.splice(logged, 1)[0]!.response!.value;
    const request = pending(
      ctx.session.append("input/request", {
        id: `${call.callId}#ask-${++asked}`,
        source: call.name,
        schema,
        message: question.message,
        callId: call.callId,
      }),
    );
    const answer = await answerLive(ctx, request, signal);
    if (finished) return undefined;
    // No answer — none given, or the turn was cancelled or disposed meanwhile: the call waits
    // for one (a cancel then closes it with the turn's other waiting calls).
    if (answer === undefined || signal.aborted) {
      suspended = true;
      return undefined;
    }
    ctx.session.append("input/response", answer);
    return answer.value;
  };
  return {
    ask,
    suspended: () => suspended,
    done: () => {
      finished = true;
    },
  };
}
