// What a client may queue: the checks `enqueueTurn` makes before anything is written (no session
// row, no turn row for a refused turn). Text goes into PostgreSQL TEXT columns (the queue's
// prompt and profile), which cannot hold U+0000 (the statement fails) or a lone surrogate (no
// UTF-8 form: the driver would store U+FFFD instead, silently changing the prompt). Both are
// refused with `invalid-turn` naming where the character is, so what is queued is exactly what
// the worker runs and what the log records.
import { isSafeSessionId } from "../session/index.js";
import { FleetError } from "./types.js";

export interface TurnInput {
  readonly sessionId: string;
  readonly prompt: string;
  readonly profile: string;
}

/** A lone surrogate: half of a UTF-16 pair with no partner. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Why `text` cannot be stored exactly in a TEXT column, or undefined when it can. */
export function unstorable(text: string): string | undefined {
  const nul = text.indexOf("\u0000");
  if (nul >= 0) return `contains U+0000 (NUL) at character ${nul}, which PostgreSQL text cannot hold`;
  const lone = LONE_SURROGATE.exec(text);
  if (lone !== null) {
    const unit = lone[0].charCodeAt(0).toString(16).toUpperCase();
    return `contains a lone surrogate (U+${unit}) at character ${lone.index}, which has no UTF-8 form`;
  }
  return undefined;
}

/** Refuses a turn that cannot be queued exactly as given (`FleetError('invalid-turn')`); returns it typed. */
export function checkTurnInput(input: unknown): TurnInput {
  const { sessionId, prompt, profile } = (input ?? {}) as Partial<Record<keyof TurnInput, unknown>>;
  if (typeof sessionId !== "string" || !isSafeSessionId(sessionId))
    throw new FleetError("invalid-turn", `${bounded(sessionId)} is not a valid session id`);
  if (typeof prompt !== "string")
    throw new FleetError(
      "invalid-turn",
      `the prompt for session ${sessionId} must be a string, got ${bounded(prompt)}`,
    );
  if (prompt.trim() === "") throw new FleetError("invalid-turn", `the prompt for session ${sessionId} is empty`);
  const badPrompt = unstorable(prompt);
  if (badPrompt !== undefined)
    throw new FleetError("invalid-turn", `the prompt for session ${sessionId} ${badPrompt}; nothing was queued`);
  if (typeof profile !== "string" || profile === "")
    throw new FleetError("invalid-turn", `the turn for session ${sessionId} names no profile`);
  const badProfile = unstorable(profile);
  if (badProfile !== undefined || profile.includes(" ") || profile.length > 200)
    throw new FleetError(
      "invalid-turn",
      `the profile name ${bounded(profile)} for session ${sessionId} is not usable (${badProfile ?? "a space, or longer than 200 characters"})`,
    );
  return { sessionId, prompt, profile };
}

const bounded = (value: unknown): string => {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
};
