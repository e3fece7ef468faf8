// A turn's outcome as `send` and `stream` resolve it: the logged `turn/end` record (plus
// `saved`/`storeError`) with the answer attached — `text`, and for structured output `output`
// or `issues` — as non-enumerable properties, so spreading, comparing or serializing an outcome
// gives that record while `outcome.text` / `outcome.output` read the answer.
import { answerText } from "../output/index.js";
import type { Session, SessionEvent } from "../session/index.js";
import type { TurnOutcome } from "./types.js";

export interface TurnAnswer {
  readonly text: string;
  /** The validated structured output (only for a turn that completed). */
  readonly output?: { readonly value: unknown };
  readonly issues?: readonly string[];
}

export function withAnswer(outcome: Omit<TurnOutcome, "text">, answer: TurnAnswer): TurnOutcome {
  const hidden = (value: unknown): PropertyDescriptor => ({ value, enumerable: false });
  // the common case (text only) without the descriptor map
  if (answer.output === undefined && answer.issues === undefined)
    return Object.defineProperty({ ...outcome }, "text", hidden(answer.text)) as TurnOutcome;
  return Object.defineProperties(
    { ...outcome },
    {
      text: hidden(answer.text),
      ...(answer.output === undefined ? {} : { output: hidden(answer.output.value) }),
      ...(answer.issues === undefined ? {} : { issues: hidden(answer.issues) }),
    },
  ) as TurnOutcome;
}

/** The text of the last assistant message logged at or after `fromSeq` (`""` if none). */
export function finalText(session: Session, fromSeq: number): string {
  for (let seq = session.length - 1; seq >= fromSeq; seq--) {
    const event = session.eventAt(seq);
    if (event?.type !== "assistant/message") continue;
    return answerText((event as SessionEvent<"assistant/message">).data.content);
  }
  return "";
}
